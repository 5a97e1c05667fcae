//===- Driver.cpp - one hmrewrite run: parse, rewrite, write --------------===//
///
/// \file
/// The steps of a run, in order: check the options and open the plan;
/// parse each file with its own compile command (a ClangTool per file);
/// then list the sites, or settle the edits (RewriteSession::finish), check
/// that the new text compiles, and write it as a diff, in place or as
/// clang-apply-replacements fixes. Files that do not compile are left out
/// and named; any other error means nothing is written at all.
///
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "plan/BoundedRead.h"

#include "BuildCommands.h"
#include "Output.h"
#include "Rewrite.h"
#include "Verify.h"

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <map>
#include <set>

using namespace clang;
using namespace llvm;

namespace hmplace {

namespace {

/// The files to parse, absolute, each once however often it was named: two
/// paths to one file (a symbolic link and its target, `a/../b.c` and `b.c`)
/// are one file, parsed under the first name given.
std::vector<std::string>
uniqueSourcePaths(const std::vector<std::string> &Paths) {
  std::vector<std::string> Out;
  std::set<std::string> Seen;
  SmallString<256> CWD;
  sys::fs::current_path(CWD);
  for (const std::string &P : Paths) {
    std::string Abs = normalizePath(P, CWD);
    SmallString<256> Real;
    std::string Id = sys::fs::real_path(Abs, Real) ? Abs : Real.str().str();
    if (Seen.insert(Id).second)
      Out.push_back(Abs);
  }
  return Out;
}

/// A source given is a regular file within the bound of a source
/// (BoundedRead.h): clang would read a device or a pipe without end, or a
/// file of gigabytes into memory.
bool checkSource(const std::string &Src, DiagEngine &D) {
  sys::fs::file_status St;
  if (sys::fs::status(Src, St) || !sys::fs::exists(St)) {
    D.report(Src, Severity::Error, "cannot read source: no such file");
    return false;
  }
  if (!sys::fs::is_regular_file(St)) {
    D.report(Src, Severity::Error,
             "cannot read source: a device, a pipe or a directory, not a "
             "file");
    return false;
  }
  if (St.getSize() > inputBound(InputKind::Source)) {
    D.report(Src, Severity::Error,
             "cannot read source: it is " + std::to_string(St.getSize()) +
                 " bytes, over " +
                 std::to_string(inputBound(InputKind::Source) >> 20) +
                 " MiB, the most HmPlace reads of " +
                 inputName(InputKind::Source));
    return false;
  }
  return true;
}

/// Options that contradict each other, and sources that do not exist, are
/// errors before anything is parsed. Opens the plan into \p Plan.
bool checkOptions(const RewriteOptions &O,
                  const std::vector<std::string> &Sources,
                  std::unique_ptr<PlanSource> &Plan, DiagEngine &D) {
  if (Sources.empty()) {
    D.report(Severity::Error, "no source files given");
    return false;
  }
  if (!O.ListSites) {
    if (O.PlanPath.empty()) {
      D.report(Severity::Error, "--plan is required (or use --list-sites)");
      return false;
    }
    if (!(Plan = PlanSource::open(O.PlanPath, D)))
      return false;
  }
  if (!O.ListOutput.empty() && !O.ListSites) {
    D.report(Severity::Error, "-o is for --list-sites (the rewrite goes to "
                              "standard output as a diff, or -i)");
    return false;
  }
  if (O.InPlace && !O.ExportFixes.empty()) {
    D.report(Severity::Error, "-i and --export-fixes are exclusive");
    return false;
  }
  for (const std::string &Src : Sources)
    if (!checkSource(Src, D))
      return false;
  return true;
}

/// A ClangTool for one file: each gets a FileManager of its own, whose cache
/// of paths relative to one command's directory cannot answer for another's.
ToolMaker toolMaker(const RewriteOptions &O, const BuildCommands &Commands) {
  return [&O, &Commands](const std::string &File) {
    auto Tool = std::make_unique<tooling::ClangTool>(
        Commands, std::vector<std::string>{File});
    Tool->setPrintErrorMessage(false);
    // Rewritten sources include <hmplace.h>; the project's compile commands
    // need not know where it is for hmrewrite to parse them again.
    Tool->appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
        ("-idirafter" + O.RuntimeInclude).c_str(),
        tooling::ArgumentInsertPosition::END));
    // The code's own warnings are its compiler's to give, every build; -v
    // shows them. (Errors still say a file does not compile.)
    if (!O.Verbose)
      Tool->appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
          "-w", tooling::ArgumentInsertPosition::END));
    return Tool;
  };
}

/// Parse every file into the session; files without a command or that do
/// not compile are marked failed and named.
void parseFiles(const RewriteOptions &O, const std::vector<std::string> &Files,
                const BuildCommands &Commands, const ToolMaker &MakeTool,
                bool Checked, RewriteSession &S, DiagEngine &D) {
  std::set<std::string> NoCommand;
  for (size_t I = 0; I < Files.size(); ++I) {
    size_t Parses = Commands.getCompileCommands(Files[I]).size();
    if (O.Verbose) {
      errs() << "[" << I + 1 << "/" << Files.size() << "] " << Files[I];
      // Commands that differ only in what they write parse the same.
      if (size_t Recorded = Commands.recorded(Files[I]); Recorded > Parses)
        errs() << " (" << Recorded << " compile commands, parsed " << Parses
               << (Parses == 1 ? " time" : " times") << ")";
      errs() << "\n";
    }
    if (!Parses) {
      D.report(Files[I], Severity::Error,
               Commands.onlyFrontendCommands(Files[I])
                   ? "the compile database has only clang -cc1 commands for "
                     "this file (recorded below the compiler driver); record "
                     "the build so that it holds the driver's command; not "
                     "rewritten"
                   : "no compile command for this file in the compile "
                     "database; not rewritten");
      S.markFailed(Files[I]);
      NoCommand.insert(Files[I]);
      continue;
    }
    std::unique_ptr<tooling::ClangTool> Tool = MakeTool(Files[I]);
    // The last file's AST is not freed, as the compiler itself does not
    // free it (-disable-free): the process ends right after (unless the
    // rewrite is checked by parsing again).
    if (I + 1 == Files.size() && !Checked)
      Tool->appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
          {"-Xclang", "-disable-free"}, tooling::ArgumentInsertPosition::END));
    if (Tool->run(S.actionFactory().get()) != 0 && !S.parsed(Files[I]))
      S.markFailed(Files[I]);
  }
  for (const std::string &F : S.failedFiles())
    if (!NoCommand.count(F))
      D.report(F, Severity::Error, "does not compile; not rewritten");
}

/// --list-sites: the listing to -o (all or nothing: through a temporary
/// file) or standard output.
bool listSites(const RewriteOptions &O, const RewriteSession &S,
               DiagEngine &D) {
  SmallString<256> Dir;
  sys::fs::current_path(Dir);
  if (O.ListOutput.empty()) {
    printSiteList(S, O.ListKind, O.ListDepth, Dir, outs());
    return true;
  }
  SmallString<256> Out(O.ListOutput);
  sys::fs::make_absolute(Out);
  sys::path::remove_dots(Out, /*remove_dot_dot=*/true);
  std::string Tmp = (Out + ".tmp").str();
  {
    std::error_code EC;
    raw_fd_ostream OS(Tmp, EC, sys::fs::OF_Text);
    if (EC) {
      D.report(O.ListOutput, Severity::Error, "cannot write: " + EC.message());
      return false;
    }
    printSiteList(S, O.ListKind, O.ListDepth, sys::path::parent_path(Out), OS);
  }
  if (std::error_code EC = sys::fs::rename(Tmp, Out)) {
    D.report(O.ListOutput, Severity::Error, "cannot write: " + EC.message());
    sys::fs::remove(Tmp);
    return false;
  }
  return true;
}

/// Settle the edits and write them the way the options ask; print the
/// summary. Returns whether everything was written.
bool writeRewrite(const RewriteOptions &O, RewriteSession &S,
                  const ToolMaker &MakeTool, bool Checked, DiagEngine &D) {
  if (!S.finish()) {
    errs() << "hmrewrite: nothing written (see the errors)\n";
    return false;
  }
  std::set<std::string> Broken;
  if (Checked)
    Broken = verifyRewrite(S, newContents(S, D), MakeTool, D);
  std::map<std::string, std::string> NotWritten;
  bool Written = O.InPlace ? writeInPlace(S, D, Broken, &NotWritten, O.Force)
                 : !O.ExportFixes.empty()
                     ? exportFixes(S, O.ExportFixes, D, Broken)
                     : printDiff(S, outs(), D);
  for (const std::string &F : Broken)
    NotWritten[F] = "left as before: the new text would not compile";
  errs() << "hmrewrite: " << S.summary(NotWritten) << "\n";
  return Written && Broken.empty();
}

} // namespace

std::string runtimeIncludeDir(const std::string &Exe,
                              const std::string &Fallback) {
  SmallString<256> Dir(sys::path::parent_path(sys::path::parent_path(Exe)));
  sys::path::append(Dir, "include");
  SmallString<256> Header(Dir);
  sys::path::append(Header, "hmplace.h");
  if (!Exe.empty() && sys::fs::exists(Header))
    return Dir.str().str();
  return Fallback;
}

int runRewrite(const RewriteOptions &O, tooling::CompilationDatabase &DB,
               const std::vector<std::string> &Sources, DiagEngine &D) {
  D.setWarningsAsErrors(O.Strict);
  std::unique_ptr<PlanSource> Plan;
  if (!checkOptions(O, Sources, Plan, D))
    return 1;
  // Files are written only once their new text has compiled.
  const bool Checked = (O.InPlace || !O.ExportFixes.empty()) && !O.NoVerify;
  RewriteSession S(Plan.get(), D);
  S.setRemarks(O.Remarks);
  S.setHeaderFilter(O.HeaderFilter);
  S.setRecordAllCalls(O.ListSites && O.ListDepth > 1);
  S.setListContainers(O.ListSites);
  S.setVerbose(O.Verbose);
  S.setDispatchFrees(O.DispatchFrees);
  BuildCommands Commands(DB, D);
  ToolMaker MakeTool = toolMaker(O, Commands);
  parseFiles(O, uniqueSourcePaths(Sources), Commands, MakeTool, Checked, S, D);
  if (O.ListSites)
    return listSites(O, S, D) && S.failedFiles().empty() ? 0 : 1;
  bool Written = writeRewrite(O, S, MakeTool, Checked, D);
  return Written && S.failedFiles().empty() && D.errors() == 0 ? 0 : 1;
}

} // namespace hmplace
