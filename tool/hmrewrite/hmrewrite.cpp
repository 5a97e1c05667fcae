//===- hmrewrite.cpp - rewrite planned allocation sites into memkind ------===//
///
/// \file
/// `hmrewrite -p build/ --plan plan.yaml src/*.c`: parse each file with its
/// compile command, send the planned allocation calls to the runtime's
/// placed entry points and every free/realloc to the dispatching ones, and
/// print the change as a diff (default), write it in place (-i) or export it
/// for clang-apply-replacements (--export-fixes). The run is runRewrite()
/// (Driver.cpp, in the hmrewrite library); this file parses the options.
///
//===----------------------------------------------------------------------===//
#include "Driver.h"

#include "clang/Tooling/CommonOptionsParser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"

using namespace clang;
using namespace llvm;
using namespace hmplace;

static cl::OptionCategory Cat("hmrewrite options");
/// What the command line says, filled in as it is parsed.
static RewriteOptions Options;
static cl::opt<std::string, true> PlanPathOpt("plan",
                                              cl::location(Options.PlanPath),
                                              cl::desc("Placement plan (YAML, "
                                                       ".locations)"),
                                              cl::value_desc("file"),
                                              cl::cat(Cat));
static cl::opt<bool, true> InPlaceOpt("i", cl::location(Options.InPlace),
                                      cl::desc("Rewrite the files in place"),
                                      cl::cat(Cat));
static cl::opt<bool, true>
    ForceOpt("force", cl::location(Options.Force),
             cl::desc("With -i: rewrite read-only files too (their mode "
                      "kept); without it they are left as they are"),
             cl::cat(Cat));
static cl::opt<std::string, true>
    ExportFixesOpt("export-fixes", cl::location(Options.ExportFixes),
                   cl::desc("Write the edits as clang-tidy YAML into this "
                            "directory (for clang-apply-replacements)"),
                   cl::value_desc("dir"), cl::cat(Cat));
static cl::opt<bool, true> ListSitesOpt(
    "list-sites", cl::location(Options.ListSites),
    cl::desc("Print every allocation site as a skeleton plan and exit"),
    cl::cat(Cat));
static cl::opt<std::string, true> ListOutputOpt(
    "o", cl::location(Options.ListOutput),
    cl::desc("With --list-sites: write the listing to this file (its paths "
             "relative to the file's directory; default: standard output, "
             "paths relative to the current directory)"),
    cl::value_desc("file"), cl::cat(Cat));
static cl::opt<std::string, true>
    ListKindOpt("list-kind", cl::location(Options.ListKind),
                cl::desc("Kind written for each site by --list-sites (default: "
                         "posix, i.e. leave as is)"),
                cl::init("posix"), cl::cat(Cat));
static cl::opt<unsigned, true> ListDepthOpt(
    "list-depth", cl::location(Options.ListDepth),
    cl::desc("With --list-sites: also list each site's callers in the given "
             "files as call stacks of up to N frames (default 1: sites only)"),
    cl::init(1), cl::value_desc("N"), cl::cat(Cat));
static cl::opt<bool, true>
    StrictOpt("strict", cl::location(Options.Strict),
              cl::desc("Treat warnings (stale plan entries, "
                       "unplaceable sites) as errors"),
              cl::cat(Cat));
static cl::opt<bool, true>
    RemarksOpt("remarks", cl::location(Options.Remarks),
               cl::desc("Print a remark for every placed site (as HmPlace.so's "
                        "-Rpass=hm-place)"),
               cl::cat(Cat));
static cl::opt<std::string, true> HeaderFilterOpt(
    "header-filter", cl::location(Options.HeaderFilter),
    cl::desc("Also rewrite headers whose path matches this regex (as "
             "clang-tidy's option): planned sites, caller frames, frees"),
    cl::value_desc("regex"), cl::cat(Cat));
static cl::opt<bool, true> NoVerifyOpt(
    "no-verify", cl::location(Options.NoVerify),
    cl::desc("With -i or --export-fixes: do not parse the rewritten files "
             "again before writing them (by default a file whose new text "
             "does not compile is an error and is left as it was)"),
    cl::cat(Cat));
static cl::opt<bool, true> DispatchFreesOpt(
    "dispatch-frees", cl::location(Options.DispatchFrees),
    cl::desc("Also send every free and unplanned realloc to hmplace_free / "
             "hmplace_realloc (not needed with libhmplace.so, which makes "
             "free and realloc safe for any pointer)"),
    cl::cat(Cat));
static cl::opt<bool, true>
    VerboseOpt("v", cl::location(Options.Verbose),
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

int main(int argc, const char **argv) {
  InitLLVM X(argc, argv);
  auto Opts =
      tooling::CommonOptionsParser::create(argc, argv, Cat, cl::ZeroOrMore);
  if (!Opts) {
    errs() << "hmrewrite: error: " << toString(Opts.takeError()) << "\n";
    return 1;
  }
  static int Anchor;
  Options.RuntimeInclude =
      runtimeIncludeDir(sys::fs::getMainExecutable(argv[0], &Anchor),
                        HMPLACE_RUNTIME_INCLUDE_DIR);
  DiagEngine D(errs());
  return runRewrite(Options, Opts->getCompilations(), Opts->getSourcePathList(),
                    D);
}
