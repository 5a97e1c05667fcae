//===- Verify.cpp - rewritten files must compile before they are written --===//
#include "Verify.h"

#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace clang;
using namespace llvm;

namespace hmplace {

std::map<std::string, std::string> newContents(const RewriteSession &S,
                                               DiagEngine &D) {
  std::map<std::string, std::string> Out;
  for (const auto &[File, Reps] : S.edits()) {
    auto Buf = MemoryBuffer::getFile(File);
    if (!Buf) {
      D.report(File, Severity::Error,
               "cannot read: " + Buf.getError().message());
      continue;
    }
    StringRef Old = (*Buf)->getBuffer();
    if (!Reps.empty() &&
        Reps.rbegin()->getOffset() + Reps.rbegin()->getLength() > Old.size()) {
      D.report(File, Severity::Error, "changed since it was parsed");
      continue;
    }
    auto New = tooling::applyAllReplacements(Old, Reps);
    if (!New) {
      D.report(File, Severity::Error,
               "internal: edits do not apply: " + toString(New.takeError()));
      continue;
    }
    if (*New != Old)
      Out[File] = std::move(*New);
  }
  return Out;
}

namespace {
/// Keeps the first few errors of a parse, printed as clang prints them.
class FirstErrors : public DiagnosticConsumer {
public:
  void HandleDiagnostic(DiagnosticsEngine::Level L,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(L, Info);
    if (L < DiagnosticsEngine::Error || Texts.size() >= 3)
      return;
    SmallString<128> Msg;
    Info.FormatDiagnostic(Msg);
    std::string Where;
    if (Info.hasSourceManager() && Info.getLocation().isValid()) {
      PresumedLoc PL =
          Info.getSourceManager().getPresumedLoc(Info.getLocation());
      if (PL.isValid())
        Where = std::string(PL.getFilename()) + ":" +
                std::to_string(PL.getLine()) + ":" +
                std::to_string(PL.getColumn()) + ": ";
    }
    Texts.push_back(Where + "error: " + Msg.str().str());
  }
  std::vector<std::string> Texts;
};
} // namespace

std::set<std::string>
verifyRewrite(const RewriteSession &S,
              const std::map<std::string, std::string> &New,
              const ToolMaker &Make, DiagEngine &D) {
  std::set<std::string> Broken;
  for (const auto &[Main, Info] : S.mainFiles()) {
    std::vector<std::string> Changed;
    for (const std::string &F : Info.FilesRead)
      if (New.count(F))
        Changed.push_back(F);
    if (New.count(Main) &&
        std::find(Changed.begin(), Changed.end(), Main) == Changed.end())
      Changed.push_back(Main);
    if (Changed.empty())
      continue;
    std::unique_ptr<tooling::ClangTool> Tool = Make(Main);
    // Not "N errors generated": the errors are reported below.
    Tool->appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
        "-fno-caret-diagnostics", tooling::ArgumentInsertPosition::END));
    for (const auto &[F, Text] : New)
      Tool->mapVirtualFile(F, Text);
    FirstErrors Errors;
    Tool->setDiagnosticConsumer(&Errors);
    Tool->setPrintErrorMessage(false);
    int RC =
        Tool->run(tooling::newFrontendActionFactory<SyntaxOnlyAction>().get());
    if (RC == 0 && Errors.Texts.empty())
      continue;
    std::string Msg = "the rewritten source does not compile";
    for (const std::string &T : Errors.Texts)
      Msg += "\n  " + T;
    Msg += "\n  left as they were:";
    for (const std::string &F : Changed) {
      Msg += " " + F;
      Broken.insert(F);
    }
    D.report(Main, Severity::Error, Msg);
  }
  return Broken;
}

} // namespace hmplace
