//===- hmplan.cpp - validate, convert and show placement plans ------------===//
///
/// \file
/// `hmplan check|convert|show|kinds`. All work is in the plan library; this
/// file parses options and maps results to exit codes (0 ok, 1 bad input).
///
//===----------------------------------------------------------------------===//
#include "Reports.h"
#include "plan/BuildRecord.h"
#include "plan/Plan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace hmplace;

static cl::OptionCategory Cat("hmplan options");

static cl::SubCommand CheckCmd("check", "Validate plans and print a summary");
static cl::SubCommand
    ConvertCmd("convert",
               "Convert a plan (YAML, .locations, memory definitions) to YAML "
               "or .locations");
static cl::SubCommand ShowCmd("show", "Print a plan as a table");
static cl::SubCommand
    MatchCmd("match",
             "Show which plan entry places each given call (file:line:col, "
             "or a call stack 'a.c:1:2>b.c:3:4')");
static cl::SubCommand
    EnvCmd("env", "Print HMPLACE_BUDGET for the runtime from the plan's tier "
                  "capacities (e.g. export $(hmplan env plan.yaml))");
static cl::SubCommand
    SummaryCmd("summary",
               "After a build with HmPlace.so: one warning per plan entry that "
               "placed nothing in the whole build, and why");
static cl::opt<std::string> SummaryPlan(cl::Positional, cl::Required,
                                        cl::desc("<plan>"), cl::sub(SummaryCmd),
                                        cl::cat(Cat));
static cl::SubCommand
    ReportsCmd("reports",
               "Summarise the runtime's JSON reports of the ranks of a job "
               "(HMPLACE_REPORT=json:report.%r.json): per rank and kind, then "
               "per kind for the whole job");
static cl::list<std::string> ReportFiles(cl::Positional, cl::OneOrMore,
                                         cl::desc("<report.json>..."),
                                         cl::sub(ReportsCmd), cl::cat(Cat));
static cl::SubCommand KindsCmd("kinds", "List the kinds and aliases a plan "
                                        "may name");

static cl::list<std::string> CheckInputs(cl::Positional, cl::OneOrMore,
                                         cl::desc("<plan>..."),
                                         cl::sub(CheckCmd), cl::cat(Cat));
static cl::opt<bool> Strict("strict", cl::desc("Treat warnings as errors"),
                            cl::sub(CheckCmd), cl::sub(ConvertCmd),
                            cl::sub(SummaryCmd), cl::sub(MatchCmd),
                            cl::cat(Cat));
static cl::opt<std::string> ConvertInput(cl::Positional, cl::Required,
                                         cl::desc("<input>"),
                                         cl::sub(ConvertCmd), cl::cat(Cat));
static cl::opt<std::string> Output("o",
                                   cl::desc("Output file (default: "
                                            "stdout)"),
                                   cl::value_desc("file"), cl::init("-"),
                                   cl::sub(ConvertCmd), cl::cat(Cat));
static cl::opt<std::string>
    MemConfig("memory-config",
              cl::desc("FlexMalloc memory definitions file whose budgets "
                       "become tiers"),
              cl::value_desc("file"), cl::sub(ConvertCmd), cl::cat(Cat));
enum class OutFormat { Yaml, Locations };
static cl::opt<OutFormat>
    To("to",
       cl::desc("Output format (default: from -o's extension, else yaml)"),
       cl::values(clEnumValN(OutFormat::Yaml, "yaml", "HmPlace YAML plan"),
                  clEnumValN(OutFormat::Locations, "locations",
                             "FlexMalloc .locations")),
       cl::sub(ConvertCmd), cl::cat(Cat));
static cl::opt<std::string> ShowInput(cl::Positional, cl::Required,
                                      cl::desc("<plan>"), cl::sub(ShowCmd),
                                      cl::cat(Cat));

static cl::opt<std::string> MatchPlan(cl::Positional, cl::Required,
                                      cl::desc("<plan>"), cl::sub(MatchCmd),
                                      cl::cat(Cat));
static cl::list<std::string> MatchCalls(cl::Positional, cl::ZeroOrMore,
                                        cl::desc("<call>..."),
                                        cl::sub(MatchCmd), cl::cat(Cat));
static cl::opt<std::string>
    CompileDir("compile-dir",
               cl::desc("Directory the calls' compile commands ran in "
                        "(default: current directory)"),
               cl::sub(MatchCmd), cl::cat(Cat));

static cl::opt<std::string> EnvPlan(cl::Positional, cl::Required,
                                    cl::desc("<plan>"), cl::sub(EnvCmd),
                                    cl::cat(Cat));

static int check(DiagEngine &D) {
  int RC = 0;
  for (const std::string &In : CheckInputs) {
    unsigned Before = D.errors();
    std::unique_ptr<Plan> P = loadPlan(In, D);
    if (!P || D.errors() != Before) {
      RC = 1;
      continue;
    }
    writeSummary(*P, outs());
  }
  return RC;
}

static int convert(DiagEngine &D) {
  std::unique_ptr<Plan> P = loadPlan(ConvertInput, D);
  if (!P)
    return 1;
  if (!MemConfig.empty()) {
    std::unique_ptr<Plan> Defs = loadPlan(MemConfig, D);
    if (!Defs)
      return 1;
    if (Defs->Format != PlanFormat::MemoryDefinitions) {
      D.report(MemConfig, Severity::Error,
               "not a FlexMalloc memory definitions file");
      return 1;
    }
    if (!mergeMemoryDefinitions(*P, *Defs, D))
      return 1;
  }
  if (D.errors())
    return 1;
  OutFormat F =
      To.getNumOccurrences()
          ? To.getValue()
          : (sys::path::extension(Output) == ".locations" ? OutFormat::Locations
                                                          : OutFormat::Yaml);
  // Render to memory first: a failure must not leave a half-written file.
  std::string Text;
  raw_string_ostream OS(Text);
  if (F == OutFormat::Yaml)
    writeYaml(*P, OS);
  else if (!writeLocations(*P, OS, D))
    return 1;
  std::error_code EC;
  ToolOutputFile Out(Output, EC, sys::fs::OF_Text);
  if (EC) {
    D.report(Output, Severity::Error, "cannot write: " + EC.message());
    return 1;
  }
  Out.os() << Text;
  Out.keep();
  return 0;
}

static int show(DiagEngine &D) {
  std::unique_ptr<Plan> P = loadPlan(ShowInput, D);
  if (!P)
    return 1;
  writeTable(*P, outs());
  return 0;
}

static int match(DiagEngine &D) {
  std::unique_ptr<Plan> P = loadPlan(MatchPlan, D);
  if (!P)
    return 1;
  SmallString<256> Cwd;
  sys::fs::current_path(Cwd);
  std::string Dir =
      CompileDir.empty() ? std::string(Cwd) : normalizePath(CompileDir, Cwd);
  SiteMatcher M(*P);
  for (const std::string &Call : MatchCalls) {
    CallContext C;
    C.CompileDir = Dir;
    SmallVector<StringRef, 4> Parts;
    StringRef(Call).split(Parts, '>');
    for (StringRef Part : Parts) {
      std::string Err;
      std::optional<Frame> F = parseFrame(Part, Err);
      if (!F || F->Kind != Frame::Form::Source) {
        D.report(Severity::Error, "call '" + Call + "': " +
                                      (F ? "expected a source frame" : Err));
        return 1;
      }
      C.Frames.push_back({normalizePath(F->File, Dir), F->Line, F->Column});
    }
    M.addCall(std::move(C));
  }
  std::vector<Placement> Res = M.resolve();
  for (size_t I = 0; I < Res.size(); ++I) {
    outs() << MatchCalls[I] << ": ";
    const Placement &Pl = Res[I];
    switch (Pl.State) {
    case Placement::Unplanned:
      outs() << "unplanned\n";
      break;
    case Placement::Placed:
      outs() << Pl.Entry->To.Kind->Name << " (" << Pl.Entry->To.Spelling
             << ", entry '" << Pl.Entry->key() << "' at "
             << D.describe(Pl.Entry->Loc) << ")\n";
      break;
    case Placement::Conflict:
      outs() << "not placed: " << Pl.Reason << "\n";
      break;
    case Placement::Contextual:
      // What the front ends make of it: a context site whose kind the
      // caller chain decides at run time.
      outs() << "decided at run time by the caller chain:";
      for (const ContextChoice &Ch : Pl.Choices)
        outs() << " '" << Ch.Entry->key() << "' -> " << Ch.Entry->To.Kind->Name
               << ";";
      outs() << " otherwise "
             << (Pl.Entry ? Pl.Entry->To.Kind->Name : "the ordinary heap")
             << "\n";
      break;
    }
  }
  outs().flush();
  M.reportUsage(D);
  return D.errors() ? 1 : 0;
}

/// Tier capacities become the runtime's per-kind budgets; tiers that share a
/// kind add up, since the runtime budgets kinds.
static int env(DiagEngine &D) {
  std::unique_ptr<Plan> P = loadPlan(EnvPlan, D);
  if (!P)
    return 1;
  std::map<std::string, uint64_t> Budget;
  for (const auto &[Name, T] : P->Tiers)
    if (T->Capacity && !T->Kind->isHeap())
      Budget[StringRef(T->Kind->Name).drop_front(8).str()] += *T->Capacity;
  if (Budget.empty()) {
    D.report(EnvPlan, Severity::Warning,
             "no tier with a capacity and a memkind kind; nothing to budget");
    return 0;
  }
  outs() << "HMPLACE_BUDGET=";
  ListSeparator LS(",");
  for (const auto &[K, B] : Budget)
    outs() << LS << K << "=" << formatSize(B);
  outs() << "\n";
  return 0;
}

static int kinds() {
  outs() << "Kinds (memkind 1.14 static kinds, and the ordinary heap):\n";
  for (const KindInfo &K : allKinds())
    outs() << "  " << left_justify(K.Name, 42) << K.Description << "\n";
  outs() << "Aliases:\n";
  for (const KindAlias &A : allAliases())
    outs() << "  " << left_justify(A.Name, 42) << A.Kind << "\n";
  return 0;
}

/// The build records of a plan (BuildRecord.h), summarised.
static int summary(DiagEngine &D) {
  std::unique_ptr<Plan> P = loadPlan(SummaryPlan, D);
  if (!P)
    return 1;
  unsigned Records = summarizeBuild(*P, SummaryPlan, D, outs());
  return (Records && D.errors() == 0) ? 0 : 1;
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(Cat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "hmplan - validate, convert and show HmPlace placement plans\n\n"
      "  hmplan check PLAN...          validate, print a summary\n"
      "  hmplan convert IN [-o OUT]    .locations/YAML -> YAML (or "
      "--to=locations)\n"
      "  hmplan show PLAN              print a table\n"
      "  hmplan match PLAN CALL...     which entry places each call\n"
      "  hmplan env PLAN               HMPLACE_BUDGET from tier capacities\n"
      "  hmplan kinds                  list kinds and aliases\n"
      "  hmplan summary PLAN           after a build with HmPlace.so: the\n"
      "                                entries that placed nothing, and why\n"
      "  hmplan reports FILE...        the per-rank JSON reports of a job\n");
  DiagEngine D(errs());
  D.setWarningsAsErrors(Strict);
  if (CheckCmd)
    return check(D);
  if (ConvertCmd)
    return convert(D);
  if (ShowCmd)
    return show(D);
  if (MatchCmd)
    return match(D);
  if (EnvCmd)
    return env(D);
  if (KindsCmd)
    return kinds();
  if (SummaryCmd)
    return summary(D);
  if (ReportsCmd) {
    unsigned Read = summarizeReports(ReportFiles, D, outs());
    return Read == ReportFiles.size() ? 0 : 1;
  }
  errs() << "hmplan: error: expected a command: check, convert, show or "
            "kinds (see hmplan --help)\n";
  return 1;
}
