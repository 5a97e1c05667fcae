//===- hmplan.cpp - validate, convert and show placement plans ------------===//
///
/// \file
/// `hmplan check|convert|show|match|env|kinds|summary|reports|advise|misses|
/// try|scan`. The work is in the plan library, Reports, Advisor and MissTable;
/// this file parses options and maps results to exit codes (0 ok, 1 bad
/// input).
///
//===----------------------------------------------------------------------===//
#include "Advisor.h"
#include "FastMem.h"
#include "Machine.h"
#include "MemProfile.h"
#include "MissTable.h"
#include "Reports.h"
#include "Tiers.h"
#include "Try.h"
#include "plan/BuildRecord.h"
#include "plan/Kinds.h"
#include "plan/Plan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

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
static cl::opt<std::string>
    SummaryTree("tree",
                cl::desc("Where the plan was built in several trees (a "
                         "clone, a copy): count the build in the tree "
                         "holding DIR (default: the tree built last)"),
                cl::value_desc("DIR"), cl::sub(SummaryCmd), cl::cat(Cat));
static cl::SubCommand
    ReportsCmd("reports",
               "Summarise the runtime's JSON reports of the ranks of a job "
               "(HMPLACE_REPORT=json:report.%r.json): per rank and kind, then "
               "per kind for the whole job");
static cl::list<std::string> ReportFiles(cl::Positional, cl::OneOrMore,
                                         cl::desc("<report.json>..."),
                                         cl::sub(ReportsCmd), cl::cat(Cat));
static cl::SubCommand
    ScanCmd("scan", "Write a plan from the placement directives of Fortran "
                    "sources (!DIR$ ATTRIBUTES FASTMEM :: a, b; Cray's "
                    "!DIR$ MEMORY(bandwidth) a, b)");
static cl::list<std::string> ScanFiles(cl::Positional, cl::OneOrMore,
                                       cl::desc("<source.f90>..."),
                                       cl::sub(ScanCmd), cl::cat(Cat));
static cl::opt<std::string>
    ScanKind("kind",
             cl::desc("Where FASTMEM arrays go: a kind or alias (default hbm)"),
             cl::init("hbm"), cl::sub(ScanCmd), cl::cat(Cat));
static cl::SubCommand KindsCmd("kinds", "List the kinds and aliases a plan "
                                        "may name");

static cl::list<std::string> CheckInputs(cl::Positional, cl::OneOrMore,
                                         cl::desc("<plan>..."),
                                         cl::sub(CheckCmd), cl::cat(Cat));
static cl::opt<bool> Strict("strict", cl::desc("Treat warnings as errors"),
                            cl::sub(CheckCmd), cl::sub(ConvertCmd),
                            cl::sub(SummaryCmd), cl::sub(MatchCmd),
                            cl::cat(Cat));
static cl::opt<std::string> ConvertInput(cl::Positional, cl::Optional,
                                         cl::desc("<input>"),
                                         cl::sub(ConvertCmd), cl::cat(Cat));
static cl::SubCommand
    AdviseCmd("advise", "Write a plan from LLVM MemProf profiles of a program "
                        "(built through hmcc, hmc++ or hmfort's profile route, "
                        "run with MEMPROF_OPTIONS=log_path=raw)");
// Run by hmplace-probe before the options are parsed (main); listed here so
// that --help names it with the others.
static cl::SubCommand
    ProbeCmd("probe", "Measure the NUMA nodes' bandwidth and name the tiers, "
                      "for advise --machine (hmplan probe --help: its options)");
static cl::opt<std::string> Output("o",
                                   cl::desc("Write the plan here (default: "
                                            "stdout)"),
                                   cl::value_desc("file"), cl::init("-"),
                                   cl::sub(ConvertCmd), cl::sub(AdviseCmd),
                                   cl::sub(ScanCmd), cl::cat(Cat));
static cl::opt<std::string>
    MemConfig("memory-config",
              cl::desc("FlexMalloc memory definitions file whose budgets "
                       "become tiers"),
              cl::value_desc("file"), cl::sub(ConvertCmd), cl::cat(Cat));
static cl::opt<std::string> AutoHbwSize(
    "auto-hbw-size",
    cl::desc("Add a files entry with AutoHBW's size window, in "
             "AUTO_HBW_SIZE's syntax (1M:5M, or 4K for at least 4 KiB); the "
             "input plan may then be left out"),
    cl::value_desc("min[:max]"), cl::sub(ConvertCmd), cl::cat(Cat));
static cl::list<std::string>
    AutoHbwFiles("files",
                 cl::desc("With --auto-hbw-size: the source files it covers, "
                          "comma-separated globs (default: every file)"),
                 cl::CommaSeparated, cl::value_desc("glob,..."),
                 cl::sub(ConvertCmd), cl::cat(Cat));
static cl::opt<std::string>
    AutoHbwKind("auto-hbw-mem-type",
                cl::desc("With --auto-hbw-size: where the window's "
                         "allocations go (AUTO_HBW_MEM_TYPE; default "
                         "MEMKIND_HBW)"),
                cl::init("MEMKIND_HBW"), cl::sub(ConvertCmd), cl::cat(Cat));
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

static cl::SubCommand
    MissesCmd("misses",
              "Print the misses the profiled runs measured (a build profiled "
              "through hmcc samples them), per cache size: in the contexts, in "
              "no block, their total");
static cl::list<std::string> MissesProfiles(cl::Positional, cl::OneOrMore,
                                            cl::desc("<profile>..."),
                                            cl::sub(MissesCmd), cl::cat(Cat));
static cl::opt<std::string>
    MissesBinary("binary", cl::Required,
                 cl::desc("The profiled program (its debug info names the "
                          "frames)"),
                 cl::value_desc("file"), cl::sub(MissesCmd), cl::cat(Cat));
static cl::list<std::string>
    MissesSizes("cache",
                cl::desc("Cache sizes, comma-separated (default: 256KiB to "
                         "1GiB, each twice the last)"),
                cl::CommaSeparated, cl::value_desc("size,..."),
                cl::sub(MissesCmd), cl::cat(Cat));
static cl::opt<std::string>
    MissesPlan("plan",
               cl::desc("Also say where this plan puts the contexts' misses: "
                        "per kind, as the front ends place its entries"),
               cl::value_desc("plan"), cl::sub(MissesCmd), cl::cat(Cat));
static cl::opt<unsigned>
    MissesTop("top",
              cl::desc("Also list this many contexts with the most misses at "
                       "the first size"),
              cl::init(0), cl::sub(MissesCmd), cl::cat(Cat));
static cl::SubCommand
    TryCmd("try", "Run a placed build at points of its plan (the first N "
                  "entries placed, HMPLACE_ENTRIES: no rebuild) and print the "
                  "measured curve with its spread");
static cl::list<std::string>
    TryArgs(cl::Positional, cl::OneOrMore,
            cl::desc("<plan> -- <program> [<args>...]"), cl::sub(TryCmd),
            cl::cat(Cat));
static cl::opt<unsigned>
    TryRepeat("repeat", cl::desc("Counted runs of each point (default 5)"),
              cl::init(5), cl::sub(TryCmd), cl::cat(Cat));
static cl::list<std::string>
    TryPoints("points",
              cl::desc("The points: counts of entries, comma-separated "
                       "(1,4,all; N=0 is always run); default every N, or 12 "
                       "points between 0 and all"),
              cl::CommaSeparated, cl::value_desc("n,..."), cl::sub(TryCmd),
              cl::cat(Cat));
static cl::list<std::string> TryCapacities(
    "capacities",
    cl::desc("The points by capacity: for each size, the most entries from "
             "the first whose size: fits (and N=0)"),
    cl::CommaSeparated, cl::value_desc("size,..."), cl::sub(TryCmd),
    cl::cat(Cat));
static cl::opt<std::string>
    TryMetric("metric",
              cl::desc("The program's own figure: a regular expression whose "
                       "last match in its output (the first group, if any) "
                       "is a number; default: the wall time"),
              cl::value_desc("regex"), cl::sub(TryCmd), cl::cat(Cat));
static cl::opt<std::string>
    TryBetter("better",
              cl::desc("Which way --metric's figure is better: higher or "
                       "lower"),
              cl::value_desc("higher|lower"), cl::sub(TryCmd), cl::cat(Cat));
static cl::opt<std::string>
    TrySvg("svg", cl::desc("Draw the curve here (default: PLAN.try.svg)"),
           cl::value_desc("file"), cl::sub(TryCmd), cl::cat(Cat));
static cl::opt<std::string>
    TryKeep("keep",
            cl::desc("Keep the runs' entries files and outputs in this "
                     "directory"),
            cl::value_desc("dir"), cl::sub(TryCmd), cl::cat(Cat));
static cl::opt<double>
    TryAlpha("alpha",
             cl::desc("The level a difference must pass (default 0.05)"),
             cl::init(0.05), cl::sub(TryCmd), cl::cat(Cat));
static cl::list<std::string> AdviseProfiles(cl::Positional, cl::OneOrMore,
                                            cl::desc("<profile>..."),
                                            cl::sub(AdviseCmd), cl::cat(Cat));
static cl::opt<std::string>
    AdviseBinary("binary", cl::Required,
                 cl::desc("The profiled program (its debug info names the "
                          "frames)"),
                 cl::value_desc("file"), cl::sub(AdviseCmd), cl::cat(Cat));
// The tiers' names from their table (Tiers.h); made before the option.
static const std::string CapacityHelp =
    "Tier capacities: " + capacitySyntax() +
    " (default hbm=16GiB, one Xeon Max tile)";
static cl::opt<std::string> AdviseCapacity(
    "capacity", cl::desc(CapacityHelp),
    cl::value_desc("tier=size,..."), cl::sub(AdviseCmd), cl::cat(Cat));
static cl::opt<std::string> AdviseBandwidth(
    "bandwidth",
    cl::desc("The tiers' bandwidths, hbm=GB/s,ddr=GB/s (e.g. "
             "hbm=1100GB/s,ddr=370GB/s): both serve at once, so a "
             "bandwidth-bound object may be split between them"),
    cl::value_desc("tier=rate,..."), cl::sub(AdviseCmd), cl::cat(Cat));
static cl::opt<bool> AdviseWhole(
    "whole",
    cl::desc("Place contexts whole only: no split entries (an object's "
             "pages in HBM and DDR in shares)"),
    cl::sub(AdviseCmd), cl::cat(Cat));
static cl::opt<std::string> AdviseMachine(
    "machine",
    cl::desc("A machine description from `hmplan probe`: the tiers' "
             "bandwidths, and their capacities where --capacity does not "
             "give them"),
    cl::value_desc("file"), cl::sub(AdviseCmd), cl::cat(Cat));
static cl::opt<std::string>
    AdviseLLC("llc",
              cl::desc("Last-level cache size (default: this machine's)"),
              cl::value_desc("size"), cl::sub(AdviseCmd), cl::cat(Cat));
static cl::opt<AdviseOptions::GainFrom> AdviseGain(
    "gain", cl::desc("What a context's gain is (default: auto)"),
    cl::values(
        clEnumValN(AdviseOptions::GainFrom::Auto, "auto",
                   "the misses the profiled runs measured at the LLC, where "
                   "every profile has its misses file; else live-bytes"),
        clEnumValN(AdviseOptions::GainFrom::Misses, "misses",
                   "the measured misses (an error where a profile has none)"),
        clEnumValN(AdviseOptions::GainFrom::LiveBytes, "live-bytes",
                   "accesses x the chance of a miss guessed from the bytes "
                   "the context keeps live (the model before misses were "
                   "measured)")),
    cl::init(AdviseOptions::GainFrom::Auto), cl::sub(AdviseCmd), cl::cat(Cat));
static cl::opt<unsigned> LLCWays(
    "llc-ways",
    cl::desc("Read the measured misses for an N-way set-associative LLC "
             "with hashed sets (default 0: fully associative LRU)"),
    cl::value_desc("n"), cl::init(0), cl::sub(AdviseCmd), cl::sub(MissesCmd),
    cl::cat(Cat));
static cl::opt<double> AdviseAllocCost(
    "alloc-cost",
    cl::desc("Nanoseconds a placed allocation and its free cost more than "
             "the ordinary heap's, for every size (default: the measured "
             "curve, 13 ns to 16 KiB, 335 ns at 1 MiB); 0 weighs no cost"),
    cl::value_desc("ns"), cl::init(-1), cl::sub(AdviseCmd), cl::cat(Cat));
static cl::opt<unsigned> AdviseCores(
    "cores",
    cl::desc("Cores that share the tiers' bandwidth when all stream, for what "
             "HBM saves a miss (default 56, a Xeon Max socket)"),
    cl::value_desc("n"), cl::init(DefaultCores), cl::sub(AdviseCmd),
    cl::cat(Cat));
static cl::opt<double>
    AdviseMinShare("min-share",
                   cl::desc("Smallest share of the gain (accesses x miss "
                            "chance, percent) a context "
                            "must have to be placed (default 0.1)"),
                   cl::init(0.1), cl::sub(AdviseCmd), cl::cat(Cat));
static cl::opt<bool> AdviseExplain(
    "explain",
    cl::desc("Print a table to stderr: per context its figures, decision "
             "and reason"),
    cl::sub(AdviseCmd), cl::cat(Cat));
static cl::opt<bool> AdviseCurve(
    "curve",
    cl::desc("Print to stderr the share of all accesses covered against HBM "
             "capacity"),
    cl::sub(AdviseCmd), cl::cat(Cat));
static cl::opt<std::string> AdviseDumpModel(
    "dump-model",
    cl::desc("Write the fast tier's choice as the model sees it (capacity, "
             "then per candidate: gain, bytes, lifetime, chosen whole, share, "
             "pages, run, objects at once) for "
             "scripts/bench advise"),
    cl::value_desc("file"), cl::Hidden, cl::sub(AdviseCmd), cl::cat(Cat));

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

/// \p Text to -o (stdout for "-"), whole or not at all.
static bool writeOutput(StringRef Text, DiagEngine &D) {
  std::error_code EC;
  ToolOutputFile Out(Output, EC, sys::fs::OF_Text);
  if (EC) {
    D.report(Output, Severity::Error, "cannot write: " + EC.message());
    return false;
  }
  Out.os() << Text;
  Out.keep();
  return true;
}

/// The directory the plan written to -o is in (relative paths in it are
/// relative to that): the current one for stdout.
static std::string outputDir() {
  SmallString<256> Cwd;
  sys::fs::current_path(Cwd);
  if (Output == "-")
    return std::string(Cwd);
  return std::string(sys::path::parent_path(normalizePath(Output, Cwd)));
}

static int convert(DiagEngine &D) {
  if (ConvertInput.empty() && AutoHbwSize.empty()) {
    D.report("hmplan convert", Severity::Error,
             "give a plan to convert, or --auto-hbw-size");
    return 1;
  }
  if (AutoHbwSize.empty() &&
      (AutoHbwFiles.getNumOccurrences() || AutoHbwKind.getNumOccurrences())) {
    D.report("hmplan convert", Severity::Error,
             "--files and --auto-hbw-mem-type go with --auto-hbw-size");
    return 1;
  }
  std::unique_ptr<Plan> P = ConvertInput.empty() ? std::make_unique<Plan>()
                                                 : loadPlan(ConvertInput, D);
  if (!P)
    return 1;
  if (!AutoHbwSize.empty()) {
    std::string Err;
    if (!addAutoHbwEntry(*P, AutoHbwSize, AutoHbwFiles, AutoHbwKind, Err)) {
      D.report("--auto-hbw-size", Severity::Error, Err);
      return 1;
    }
  }
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
  if (!writeOutput(Text, D))
    return 1;
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
      if (!F || !(F->namesFile() || F->Kind == Frame::Form::NoDebug)) {
        D.report(Severity::Error, "call '" + Call + "': " +
                                      (F ? "expected a source frame" : Err));
        return 1;
      }
      if (F->Kind == Frame::Form::NoDebug) // no file to name
        C.Frames.push_back({"", 0, 0, F->Function});
      else
        C.Frames.push_back(
            {normalizePath(F->File, Dir), F->Line, F->Column, F->Function});
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
      outs() << Pl.Entry->To.kindText() << " (" << Pl.Entry->To.Spelling
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
        outs() << " '" << Ch.Entry->key() << "' -> " << Ch.Entry->To.kindText()
               << ";";
      outs() << " otherwise "
             << (Pl.Entry ? Pl.Entry->To.kindText() : "the ordinary heap")
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

/// Tier capacities as `hbm=16GiB,ddr=64GiB`.
static bool parseCapacities(StringRef Text, AdviseOptions &O, DiagEngine &D) {
  SmallVector<StringRef, 4> Parts;
  Text.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef Part : Parts) {
    if (!Part.contains('=')) {
      D.report(Severity::Error, "--capacity: '" + Part.str() +
                                    "': expected TIER=SIZE (hbm=16GiB)");
      return false;
    }
    auto [Name, Size] = Part.split('=');
    Name = Name.trim();
    std::string Tier = Name.lower();
    if (!findAdvisorTier(Tier)) {
      D.report(Severity::Error, "--capacity: unknown tier '" + Name.str() +
                                    "' (expected " + advisorTierList() + ")");
      return false;
    }
    if (const std::string *Same =
            tierOfRole(O.Capacity, findAdvisorTier(Tier)->Role)) {
      D.report(Severity::Error,
               "--capacity: " + (Tier == *Same
                                     ? Tier + " given twice"
                                     : Tier + " and " + *Same +
                                           " are one tier: give one of them"));
      return false;
    }
    std::string Err;
    std::optional<uint64_t> B = parseSize(Size.trim(), Err);
    if (!B || !*B) {
      D.report(Severity::Error, "--capacity: " + Tier + "=" + Size.str() +
                                    ": " + (B ? "a capacity of 0" : Err));
      return false;
    }
    O.Capacity[Tier] = *B;
  }
  return true;
}

/// --dump-model: the knapsack the fast tier's choice solved, as text.
static bool dumpModel(const KnapModel &M, DiagEngine &D) {
  std::error_code EC;
  raw_fd_ostream OS(AdviseDumpModel, EC);
  if (EC) {
    D.report(AdviseDumpModel, Severity::Error,
             "cannot write the model: " + EC.message());
    return false;
  }
  OS << "capacity " << M.Capacity << " cuts " << M.Cuts << "\n";
  for (size_t I = 0; I < M.Items.size(); ++I) {
    const KnapModel::Split &S = M.Splits[I];
    OS << format("%.17g", M.Items[I].Gain) << " " << M.Items[I].Weight << " "
       << M.Items[I].Lo << " " << M.Items[I].Hi << " " << int(M.Chosen[I])
       << " " << S.Share << " " << S.Pages << " " << S.Run << " " << S.Objects
       << "\n";
  }
  return true;
}

/// Whether \p Opt was given with an empty value (`--bandwidth ""`, as an
/// unset shell variable gives it): an error, not the default.
static bool givenEmpty(const cl::opt<std::string> &Opt, StringRef Expected,
                       DiagEngine &D) {
  if (!Opt.getNumOccurrences() || !Opt.empty())
    return false;
  D.report(Severity::Error,
           "--" + Opt.ArgStr.str() + " is empty; expected " + Expected.str());
  return true;
}

/// The machine: LLC, bandwidths and capacities from --llc, --bandwidth,
/// --machine (a `hmplan probe` file) and sysfs.
static bool machineOptions(AdviseOptions &O, DiagEngine &D) {
  if (givenEmpty(AdviseMachine, "a file from hmplan probe", D) |
      givenEmpty(AdviseBandwidth, "hbm=RATE,ddr=RATE", D) |
      givenEmpty(AdviseCapacity, "hbm=SIZE[,ddr=SIZE]...", D) |
      givenEmpty(AdviseLLC, "a size", D))
    return false;
  if (!AdviseMachine.empty()) {
    MachineFile M;
    if (!readMachineFile(AdviseMachine, M, D))
      return false;
    O.BW = M.BW;
    if (!M.BW.given() && AdviseBandwidth.empty())
      D.report(AdviseMachine, Severity::Warning,
               "no bandwidth for both an hbm and a ddr tier: the bandwidth "
               "model is off (contexts whole, and shares only to fill the "
               "capacity)");
    for (const auto &[Tier, Cap] : M.Capacity) // --capacity wins
      if (!tierOfRole(O.Capacity, findAdvisorTier(Tier)->Role))
        O.Capacity[Tier] = Cap;
  }
  if (!AdviseBandwidth.empty()) {
    std::string Err = parseBandwidths(AdviseBandwidth, O.BW);
    if (!Err.empty()) {
      D.report(Severity::Error, "--bandwidth: " + Err);
      return false;
    }
  }
  if (!AdviseLLC.empty()) {
    std::string Err;
    std::optional<uint64_t> B = parseSize(AdviseLLC, Err);
    if (!B) {
      D.report(Severity::Error, "--llc: " + Err);
      return false;
    }
    O.LLC = *B;
    O.LLCSource = "--llc";
  } else {
    O.LLC = detectLLC(O.LLCSource);
  }
  O.LLCWays = LLCWays;
  return true;
}

/// What the gain was, said on every run: the measured misses, or the
/// guess, and why the profiles did not give the misses.
static void sayGain(const Advice &A, const AdviseOptions &O, DiagEngine &D) {
  const ProfileMisses &M = A.Misses;
  if (A.Measured) {
    errs() << "hmplan advise: gain: the misses the profiled run"
           << (M.Measured == 1 ? "" : "s") << " measured in an LLC of "
           << humanSize(O.LLC) << " (1 access in " << M.Sample << " sampled)\n";
    if (M.Unattributed)
      D.report(Severity::Warning,
               "a run could not tell which allocation its sampled lines "
               "belong to (MemProf's block header is not the one HmPlace "
               "knows): its misses count for no context");
    return;
  }
  std::string Why;
  if (O.Gain == AdviseOptions::GainFrom::LiveBytes)
    Why = "--gain=live-bytes";
  else if (!M.Measured && !M.Instrumented)
    Why = "the profiled binary does not sample its accesses for misses "
          "(profile a build made through hmcc, hmc++ or hmfort --profile "
          "of this release)";
  else
    Why = std::to_string(M.Unmeasured.size()) + " of " +
          std::to_string(M.Unmeasured.size() + M.Measured) +
          " profiles have no misses file beside them, " + M.Unmeasured[0] +
          " the first; an indexed profile has none: give the raw profiles";
  errs() << "hmplan advise: gain: accesses x the chance of a miss guessed "
            "from the bytes each context keeps live ("
         << Why << ")\n";
  if (M.Instrumented && O.Gain != AdviseOptions::GainFrom::LiveBytes &&
      !M.Unmeasured.empty())
    D.report(M.Unmeasured[0], Severity::Warning,
             "no misses file beside it, though the profiled binary samples "
             "its accesses: the run wrote it at exit as " +
                 M.Unmeasured[0] +
                 ".misses (did it not exit normally, or was the file left "
                 "behind?)");
}

static int adviseCmd(DiagEngine &D) {
  AdviseOptions O;
  O.Binary = sys::path::filename(AdviseBinary).str(); // the plan is shared
  O.Profiles = AdviseProfiles.size();
  O.MinShare = AdviseMinShare / 100;
  O.Whole = AdviseWhole;
  O.Gain = AdviseGain;
  O.PlanDir = outputDir();
  if (AdviseMinShare < 0 || AdviseMinShare > 100) {
    D.report(Severity::Error, "--min-share: expected a percent in [0, 100]");
    return 1;
  }
  bool Given = !AdviseCapacity.empty() || !AdviseMachine.empty();
  if (!parseCapacities(
          Given ? StringRef(AdviseCapacity) : StringRef("hbm=16GiB"), O, D) ||
      !machineOptions(O, D))
    return 1;
  if (AdviseAllocCost.getNumOccurrences() && AdviseAllocCost < 0) {
    D.report(Severity::Error, "--alloc-cost: expected nanoseconds, 0 or more");
    return 1;
  }
  if (!AdviseCores) {
    D.report(Severity::Error, "--cores: expected 1 or more");
    return 1;
  }
  O.Cost = PlacedCost::make(O.BW, AdviseCores, AdviseAllocCost);
  if (!tierOfRole(O.Capacity, TierRole::Fast) &&
      !tierOfRole(O.Capacity, TierRole::Slow)) {
    D.report(Severity::Error,
             "--capacity: no tier to place in (give hbm=SIZE, or a slow "
             "tier with ddr=SIZE)");
    return 1;
  }
  std::vector<ProfileContext> Contexts;
  ProfileBlindSpots Blind;
  ProfileMisses Misses;
  if (!readMemProfiles(AdviseProfiles, AdviseBinary, Contexts, Blind, Misses,
                       D))
    return 1;
  O.Profiles = Misses.Measured + Misses.Unmeasured.size(); // not their files
  Advice A;
  A.Blind = Blind;
  A.Misses = Misses;
  if (!advise(Contexts, O, A, D) || D.errors())
    return 1;
  sayGain(A, O, D);
  if (AdviseExplain)
    printExplanation(A, errs());
  if (AdviseCurve)
    printCurve(A, errs());
  if (!AdviseDumpModel.empty() && !dumpModel(A.Model, D))
    return 1;
  if (!writeOutput(A.PlanText, D))
    return 1;
  unsigned Placed = 0;
  for (const ContextDecision &CD : A.Decisions)
    Placed += !CD.Tier.empty();
  errs() << "hmplan advise: " << Contexts.size() << " context"
         << (Contexts.size() == 1 ? "" : "s") << ", " << Placed << " placed";
  if (Output != "-")
    errs() << "; plan written to " << Output;
  errs() << "\n";
  return 0;
}

/// `hmplan misses`: the runs' misses by cache size (MissTable.h).
static int missesCmd(DiagEngine &D) {
  std::vector<uint64_t> Sizes;
  for (const std::string &S : MissesSizes) {
    std::string Err;
    std::optional<uint64_t> B = parseSize(S, Err);
    if (!B || !*B) {
      D.report(Severity::Error, "--cache: " + (B ? "a size of 0" : Err));
      return 1;
    }
    Sizes.push_back(*B);
  }
  for (uint64_t S = 256 << 10;
       Sizes.empty() || (MissesSizes.empty() && S <= (uint64_t(1) << 30));
       S *= 2)
    Sizes.push_back(S);
  std::vector<ProfileContext> Contexts;
  ProfileBlindSpots Blind;
  ProfileMisses Misses;
  if (!readMemProfiles(MissesProfiles, MissesBinary, Contexts, Blind, Misses,
                       D))
    return 1;
  if (!Misses.complete()) {
    D.report(Misses.Unmeasured.empty() ? MissesBinary : Misses.Unmeasured[0],
             Severity::Error,
             "no misses file beside the profile (PROFILE.misses): profile a "
             "build made through hmcc, hmc++ or hmfort --profile");
    return 1;
  }
  std::unique_ptr<Plan> P;
  if (!MissesPlan.empty() && !(P = loadPlan(MissesPlan, D)))
    return 1;
  printMissTable(Contexts, Misses, Sizes, LLCWays, MissesTop, outs());
  if (P)
    printPlanMisses(Contexts, *P, MissesPlan, Sizes, LLCWays, outs());
  return 0;
}

/// `hmplan try`: the plan's curve measured (Try.h).
static int tryCmd(DiagEngine &D) {
  TryOptions O;
  O.PlanPath = TryArgs.front();
  O.Argv.assign(TryArgs.begin() + 1, TryArgs.end());
  O.Repeat = TryRepeat;
  O.Points = TryPoints;
  O.Capacities = TryCapacities;
  O.Metric = TryMetric;
  O.Better = TryBetter;
  O.Svg = TrySvg;
  O.Keep = TryKeep;
  O.Alpha = TryAlpha;
  return tryPlan(O, D, outs());
}

/// FASTMEM directives of Fortran sources as a plan (FastMem.h).
static int scan(DiagEngine &D) {
  Plan Empty;
  const Tier *T = nullptr;
  if (!Empty.resolveKind(ScanKind, &T)) {
    D.report(Severity::Error, "unknown kind '" + ScanKind +
                                  "' for --kind (hmplan kinds lists them)");
    return 1;
  }
  ScanResult R;
  if (!scanFastMem(ScanFiles, outputDir(), ScanKind, D, R) || D.errors())
    return 1;
  if (!writeOutput(R.PlanText, D))
    return 1;
  errs() << "hmplan scan: " << ScanFiles.size() << " file"
         << (ScanFiles.size() == 1 ? "" : "s") << ", " << R.Directives
         << " placement directive" << (R.Directives == 1 ? "" : "s") << ", "
         << R.Entries << " entr" << (R.Entries == 1 ? "y" : "ies");
  if (Output != "-")
    errs() << "; plan written to " << Output;
  errs() << "\n";
  // Where HmPlace's default differs from Intel's: said where it is met.
  if (R.Entries && Empty.resolveKind(ScanKind, &T) == findKind("MEMKIND_HBW"))
    errs() << "hmplan scan: note: the entries bind to HBM (kind " << ScanKind
           << ": MEMKIND_HBW; when it is full the runtime falls back to the "
              "ordinary heap, warns and counts); FASTMEM prefers HBM, as "
              "--kind hbm-preferred does\n";
  return 0;
}

/// The build records of a plan (BuildRecord.h), summarised.
static int summary(DiagEngine &D) {
  std::unique_ptr<Plan> P = loadPlan(SummaryPlan, D);
  if (!P)
    return 1;
  unsigned Records = summarizeBuild(*P, SummaryPlan, D, outs(), SummaryTree);
  return (Records && D.errors() == 0) ? 0 : 1;
}

/// `hmplan probe ...`: runs hmplace-probe (tool/probe), installed beside
/// the other helpers in <prefix>/libexec/hmplace, with the same arguments.
static int probe(int argc, char **argv) {
  std::string Self = sys::fs::getMainExecutable(argv[0], (void *)&probe);
  SmallString<256> Helper(sys::path::parent_path(sys::path::parent_path(Self)));
  sys::path::append(Helper, "libexec", "hmplace", "hmplace-probe");
  std::vector<char *> Args = {Helper.data()};
  for (int I = 2; I < argc; ++I)
    Args.push_back(argv[I]);
  Args.push_back(nullptr);
  execv(Helper.c_str(), Args.data());
  errs() << "hmplan probe: error: cannot run " << Helper << ": "
         << std::strerror(errno) << "\n";
  return 1;
}

int main(int argc, char **argv) {
  if (argc > 1 && StringRef(argv[1]) == "probe")
    return probe(argc, argv);
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
      "  hmplan reports FILE...        the per-rank JSON reports of a job\n"
      "  hmplan advise PROFILE... --binary APP [--capacity hbm=16GiB]\n"
      "                                a plan from LLVM MemProf profiles\n"
      "  hmplan misses PROFILE... --binary APP\n"
      "                                the misses the runs measured, per "
      "cache size\n"
      "  hmplan try PLAN -- APP ARGS... run a placed build at N = 0 .. all "
      "of the\n"
      "                                plan's entries, print the measured "
      "curve\n"
      "  hmplan scan SOURCE... [-o OUT] a plan from Fortran FASTMEM "
      "directives\n"
      "  hmplan probe [-o FILE]        measure the NUMA nodes' bandwidth, "
      "name the tiers\n");
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
  if (AdviseCmd)
    return adviseCmd(D);
  if (MissesCmd)
    return missesCmd(D);
  if (TryCmd)
    return tryCmd(D);
  if (ScanCmd)
    return scan(D);
  if (ReportsCmd) {
    unsigned Read = summarizeReports(ReportFiles, D, outs());
    return Read == ReportFiles.size() ? 0 : 1;
  }
  errs() << "hmplan: error: expected a command: check, convert, show, "
            "match, env, kinds, summary, reports, advise, misses, try or scan "
            "(see "
            "hmplan --help)\n";
  return 1;
}
