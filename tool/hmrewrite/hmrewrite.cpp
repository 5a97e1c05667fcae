//===- hmrewrite.cpp - rewrite planned allocation sites into memkind ------===//
///
/// \file
/// `hmrewrite -p build/ --plan plan.yaml src/*.c`: parse each file with its
/// compile command, send the planned allocation calls to the runtime's
/// placed entry points and every free/realloc to the dispatching ones, and
/// print the change as a diff (default), write it in place (-i) or export it
/// for clang-apply-replacements (--export-fixes). The work is in Rewrite.cpp
/// and Output.cpp; this file wires options to them.
///
//===----------------------------------------------------------------------===//
#include "BuildCommands.h"
#include "Output.h"
#include "Rewrite.h"
#include "Verify.h"

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

#include <map>
#include <set>

using namespace clang;
using namespace llvm;
using namespace hmplace;

static cl::OptionCategory Cat("hmrewrite options");
static cl::opt<std::string> PlanPath("plan",
                                     cl::desc("Placement plan (YAML, "
                                              ".locations)"),
                                     cl::value_desc("file"), cl::cat(Cat));
static cl::opt<bool> InPlace("i", cl::desc("Rewrite the files in place"),
                             cl::cat(Cat));
static cl::opt<std::string>
    ExportFixes("export-fixes",
                cl::desc("Write the edits as clang-tidy YAML into this "
                         "directory (for clang-apply-replacements)"),
                cl::value_desc("dir"), cl::cat(Cat));
static cl::opt<bool> ListSites(
    "list-sites",
    cl::desc("Print every allocation site as a skeleton plan and exit"),
    cl::cat(Cat));
static cl::opt<std::string> ListOutput(
    "o",
    cl::desc("With --list-sites: write the listing to this file (its paths "
             "relative to the file's directory; default: standard output, "
             "paths relative to the current directory)"),
    cl::value_desc("file"), cl::cat(Cat));
static cl::opt<std::string>
    ListKind("list-kind",
             cl::desc("Kind written for each site by --list-sites (default: "
                      "posix, i.e. leave as is)"),
             cl::init("posix"), cl::cat(Cat));
static cl::opt<unsigned> ListDepth(
    "list-depth",
    cl::desc("With --list-sites: also list each site's callers in the given "
             "files as call stacks of up to N frames (default 1: sites only)"),
    cl::init(1), cl::value_desc("N"), cl::cat(Cat));
static cl::opt<bool> Strict("strict",
                            cl::desc("Treat warnings (stale plan entries, "
                                     "unplaceable sites) as errors"),
                            cl::cat(Cat));
static cl::opt<bool>
    Remarks("remarks",
            cl::desc("Print a remark for every placed site (as HmPlace.so's "
                     "-Rpass=hm-place)"),
            cl::cat(Cat));
static cl::opt<std::string> HeaderFilter(
    "header-filter",
    cl::desc("Also rewrite headers whose path matches this regex (as "
             "clang-tidy's option): planned sites, caller frames, frees"),
    cl::value_desc("regex"), cl::cat(Cat));
static cl::opt<bool> NoVerify(
    "no-verify",
    cl::desc("With -i or --export-fixes: do not parse the rewritten files "
             "again before writing them (by default a file whose new text "
             "does not compile is an error and is left as it was)"),
    cl::cat(Cat));
static cl::opt<bool> DispatchFrees(
    "dispatch-frees",
    cl::desc("Also send every free and unplanned realloc to hmplace_free / "
             "hmplace_realloc (not needed with libhmplace.so, which makes "
             "free and realloc safe for any pointer)"),
    cl::cat(Cat));
static cl::opt<bool> Verbose("v",
                             cl::desc("Print a line per file as it is parsed, "
                                      "every plan entry for files not given, "
                                      "and the code's own compiler warnings"),
                             cl::cat(Cat));
static cl::extrahelp More(R"(
Every planned malloc/calloc/realloc/aligned_alloc/posix_memalign/memalign/
valloc/strdup/strndup becomes the runtime's placed call (hmplace_malloc(
HMPLACE_HBW, n), ...), and caller frames of call-stack entries are wrapped
in hmplace.h's HMPLACE_CALLER forms. Link the result with -lhmplace, whose
free and realloc take any pointer.
)");

/// The files to parse, absolute, each once however often it was named: two
/// paths to one file (a symbolic link and its target, `a/../b.c` and `b.c`)
/// are one file, parsed under the first name given.
static std::vector<std::string>
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

/// Where hmplace.h is: beside an installed hmrewrite (PREFIX/bin ->
/// PREFIX/include, wherever the prefix was moved), else the source tree this
/// build came from.
static std::string runtimeIncludeDir(const char *Argv0) {
  static int Anchor;
  std::string Exe = sys::fs::getMainExecutable(Argv0, &Anchor);
  SmallString<256> Dir(sys::path::parent_path(sys::path::parent_path(Exe)));
  sys::path::append(Dir, "include");
  SmallString<256> Header(Dir);
  sys::path::append(Header, "hmplace.h");
  if (!Exe.empty() && sys::fs::exists(Header))
    return Dir.str().str();
  return HMPLACE_RUNTIME_INCLUDE_DIR;
}

/// --list-sites: the listing to -o (all or nothing: through a temporary
/// file) or standard output.
static bool listSites(const RewriteSession &S, DiagEngine &D) {
  SmallString<256> Dir;
  sys::fs::current_path(Dir);
  if (ListOutput.empty()) {
    printSiteList(S, ListKind, ListDepth, Dir, outs());
    return true;
  }
  SmallString<256> Out(ListOutput);
  sys::fs::make_absolute(Out);
  sys::path::remove_dots(Out, /*remove_dot_dot=*/true);
  std::string Tmp = (Out + ".tmp").str();
  {
    std::error_code EC;
    raw_fd_ostream OS(Tmp, EC, sys::fs::OF_Text);
    if (EC) {
      D.report(ListOutput, Severity::Error, "cannot write: " + EC.message());
      return false;
    }
    printSiteList(S, ListKind, ListDepth, sys::path::parent_path(Out), OS);
  }
  if (std::error_code EC = sys::fs::rename(Tmp, Out)) {
    D.report(ListOutput, Severity::Error, "cannot write: " + EC.message());
    sys::fs::remove(Tmp);
    return false;
  }
  return true;
}

int main(int argc, const char **argv) {
  InitLLVM X(argc, argv);
  auto Opts =
      tooling::CommonOptionsParser::create(argc, argv, Cat, cl::ZeroOrMore);
  if (!Opts) {
    errs() << "hmrewrite: error: " << toString(Opts.takeError()) << "\n";
    return 1;
  }
  DiagEngine D(errs());
  D.setWarningsAsErrors(Strict);
  if (Opts->getSourcePathList().empty()) {
    D.report(Severity::Error, "no source files given");
    return 1;
  }
  std::unique_ptr<PlanSource> ThePlan;
  if (!ListSites) {
    if (PlanPath.empty()) {
      D.report(Severity::Error, "--plan is required (or use --list-sites)");
      return 1;
    }
    if (!(ThePlan = PlanSource::open(PlanPath, D)))
      return 1;
  }
  if (!ListOutput.empty() && !ListSites) {
    D.report(Severity::Error, "-o is for --list-sites (the rewrite goes to "
                              "standard output as a diff, or -i)");
    return 1;
  }
  if (InPlace && !ExportFixes.empty()) {
    D.report(Severity::Error, "-i and --export-fixes are exclusive");
    return 1;
  }

  for (const std::string &Src : Opts->getSourcePathList())
    if (!sys::fs::exists(Src)) {
      D.report(Src, Severity::Error, "cannot read source: no such file");
      return 1;
    }

  // Files are written only once their new text has compiled.
  const bool Checked = (InPlace || !ExportFixes.empty()) && !NoVerify;
  RewriteSession S(ThePlan.get(), D);
  S.setRemarks(Remarks);
  S.setHeaderFilter(HeaderFilter);
  S.setRecordAllCalls(ListSites && ListDepth > 1);
  S.setListContainers(ListSites);
  S.setVerbose(Verbose);
  S.setDispatchFrees(DispatchFrees);
  BuildCommands Commands(Opts->getCompilations(), D);
  std::vector<std::string> Sources =
      uniqueSourcePaths(Opts->getSourcePathList());
  std::set<std::string> NoCommand;
  const std::string RuntimeInclude = runtimeIncludeDir(argv[0]);
  // One ClangTool per file: each gets a FileManager of its own, whose cache
  // of paths relative to one command's directory cannot answer for another's.
  ToolMaker MakeTool = [&](const std::string &File) {
    auto Tool = std::make_unique<tooling::ClangTool>(
        Commands, std::vector<std::string>{File});
    Tool->setPrintErrorMessage(false);
    // Rewritten sources include <hmplace.h>; the project's compile commands
    // need not know where it is for hmrewrite to parse them again.
    Tool->appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
        ("-idirafter" + RuntimeInclude).c_str(),
        tooling::ArgumentInsertPosition::END));
    // The code's own warnings are its compiler's to give, every build; -v
    // shows them. (Errors still say a file does not compile.)
    if (!Verbose)
      Tool->appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
          "-w", tooling::ArgumentInsertPosition::END));
    return Tool;
  };
  for (size_t I = 0; I < Sources.size(); ++I) {
    if (Verbose)
      errs() << "[" << I + 1 << "/" << Sources.size() << "] " << Sources[I]
             << "\n";
    if (Commands.getCompileCommands(Sources[I]).empty()) {
      D.report(Sources[I], Severity::Error,
               Commands.onlyFrontendCommands(Sources[I])
                   ? "the compile database has only clang -cc1 commands for "
                     "this file (recorded below the compiler driver); record "
                     "the build so that it holds the driver's command; not "
                     "rewritten"
                   : "no compile command for this file in the compile "
                     "database; not rewritten");
      S.markFailed(Sources[I]);
      NoCommand.insert(Sources[I]);
      continue;
    }
    std::unique_ptr<tooling::ClangTool> Tool = MakeTool(Sources[I]);
    // The last file's AST is not freed, as the compiler itself does not
    // free it (-disable-free): the process ends right after (unless the
    // rewrite is checked by parsing again).
    if (I + 1 == Sources.size() && !Checked)
      Tool->appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
          {"-Xclang", "-disable-free"}, tooling::ArgumentInsertPosition::END));
    if (Tool->run(S.actionFactory().get()) != 0 && !S.parsed(Sources[I]))
      S.markFailed(Sources[I]);
  }
  for (const std::string &F : S.failedFiles())
    if (!NoCommand.count(F))
      D.report(F, Severity::Error, "does not compile; not rewritten");

  if (ListSites)
    return listSites(S, D) && S.failedFiles().empty() ? 0 : 1;
  // Files that do not compile are left out; the others are still written.
  // Any other error (a plan problem, or a warning under --strict) means
  // nothing is written at all.
  bool OK = S.finish();
  bool Written = false;
  std::set<std::string> Broken, Unwritable;
  if (OK) {
    if (Checked)
      Broken = verifyRewrite(S, newContents(S, D), MakeTool, D);
    Written = InPlace                ? writeInPlace(S, D, Broken, &Unwritable)
              : !ExportFixes.empty() ? exportFixes(S, ExportFixes, D, Broken)
                                     : printDiff(S, outs(), D);
    Written &= Broken.empty();
  }
  std::map<std::string, std::string> NotWritten;
  for (const std::string &F : Broken)
    NotWritten[F] = "left as before: the new text would not compile";
  for (const std::string &F : Unwritable)
    NotWritten[F] = "left as before: it could not be written";
  if (OK)
    errs() << "hmrewrite: " << S.summary(NotWritten) << "\n";
  else
    errs() << "hmrewrite: nothing written (see the errors)\n";
  return (OK && Written && S.failedFiles().empty() && D.errors() == 0) ? 0 : 1;
}
