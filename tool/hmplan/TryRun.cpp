//===- TryRun.cpp - `hmplan try`: one run of the program at a point -------===//
#include "TryRun.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <chrono>

extern char **environ;

using namespace llvm;

namespace hmplace {

bool makeCommand(const std::vector<std::string> &Argv, TryCommand &C,
                 std::string &Err) {
  C.Args = Argv;
  if (StringRef(Argv[0]).contains('/')) {
    C.Program = Argv[0];
  } else if (ErrorOr<std::string> P = sys::findProgramByName(Argv[0])) {
    C.Program = *P;
  } else {
    Err = "cannot find '" + Argv[0] + "' on PATH";
    return false;
  }
  if (!sys::fs::can_execute(C.Program)) {
    Err = "'" + C.Program + "' is not an executable file";
    return false;
  }
  for (char **E = environ; E && *E; ++E) {
    StringRef V(*E);
    if (!V.starts_with("HMPLACE_ENTRIES=") && !V.starts_with("HMPLACE_REPORT="))
      C.Env.push_back(V.str());
  }
  return true;
}

std::optional<double> lastMetric(const Regex &Re, StringRef Text) {
  std::optional<double> Last;
  SmallVector<StringRef, 4> M;
  while (!Text.empty() && Re.match(Text, &M)) {
    StringRef Num = (M.size() > 1 ? M[1] : M[0]).trim();
    double V;
    if (!Num.getAsDouble(V))
      Last = V;
    size_t End = M[0].data() + M[0].size() - Text.data();
    Text = Text.drop_front(std::max<size_t>(End, 1));
  }
  return Last;
}

static uint64_t num(const json::Object &O, StringRef K) {
  if (std::optional<int64_t> V = O.getInteger(K))
    return *V < 0 ? 0 : uint64_t(*V);
  return 0;
}

/// Add one report's figures to \p P; false if it is not a report.
static bool addReport(StringRef Text, TryPlaced &P) {
  Expected<json::Value> V = json::parse(Text);
  if (!V) {
    consumeError(V.takeError());
    return false;
  }
  const json::Object *Top = V->getAsObject();
  const json::Array *Kinds = Top ? Top->getArray("kinds") : nullptr;
  if (!Kinds)
    return false;
  for (const json::Value &KV : *Kinds)
    if (const json::Object *K = KV.getAsObject()) {
      P.Objects += num(*K, "allocs");
      P.Peak += num(*K, "peak_live");
      P.Fallbacks += num(*K, "fallbacks");
    }
  const json::Object *Only = Top->getObject("only_entries");
  P.ReadEntries = (P.Reports == 0 || P.ReadEntries) && Only;
  if (Only) {
    P.Held += num(*Only, "held");
    P.Unnamed += num(*Only, "unnamed");
  }
  ++P.Reports;
  return true;
}

/// Read (and remove) the reports ReportStem.*.json.
static void readReports(StringRef ReportStem, TryPlaced &P) {
  StringRef Dir = sys::path::parent_path(ReportStem);
  std::string Prefix = sys::path::filename(ReportStem).str() + ".";
  std::error_code EC;
  std::vector<std::string> Files;
  for (sys::fs::directory_iterator I(Dir, EC), E; I != E && !EC;
       I.increment(EC)) {
    StringRef Name = sys::path::filename(I->path());
    if (Name.starts_with(Prefix) && Name.ends_with(".json"))
      Files.push_back(I->path());
  }
  for (const std::string &F : Files) {
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(F))
      addReport((*B)->getBuffer(), P);
    sys::fs::remove(F);
  }
}

/// The last lines of \p OutFile, indented, for a message.
static std::string tail(StringRef OutFile) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(OutFile);
  if (!B)
    return "";
  SmallVector<StringRef, 0> Lines;
  (*B)->getBuffer().rtrim().split(Lines, '\n');
  std::string S;
  for (size_t I = Lines.size() > 8 ? Lines.size() - 8 : 0; I < Lines.size();
       ++I)
    S += "\n  | " + Lines[I].str();
  return S;
}

bool runOnce(const TryCommand &C, StringRef EntriesFile, StringRef OutFile,
             StringRef ReportStem, TryRunResult &R, std::string &Err) {
  std::vector<StringRef> Args(C.Args.begin(), C.Args.end());
  std::vector<std::string> EnvS = C.Env;
  EnvS.push_back("HMPLACE_ENTRIES=" + EntriesFile.str());
  if (!ReportStem.empty())
    EnvS.push_back("HMPLACE_REPORT=json:" + ReportStem.str() + ".%p.json");
  std::vector<StringRef> Env(EnvS.begin(), EnvS.end());
  std::optional<StringRef> Redirects[] = {StringRef("/dev/null"), OutFile,
                                          OutFile};
  std::string ExecErr;
  bool Failed = false;
  auto T0 = std::chrono::steady_clock::now();
  int RC = sys::ExecuteAndWait(C.Program, Args, Env, Redirects, 0, 0, &ExecErr,
                               &Failed);
  R.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  if (Failed || RC != 0) {
    Err = C.Program + " " +
          (Failed || RC < 0 ? "failed: " + ExecErr
                            : "exited with status " + std::to_string(RC)) +
          "; its output (" + OutFile.str() + ") ends:" + tail(OutFile);
    return false;
  }
  if (!ReportStem.empty())
    readReports(ReportStem, R.Placed);
  if (C.Metric.empty())
    return true;
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(OutFile);
  Regex Re(C.Metric);
  if (B)
    R.Metric = lastMetric(Re, (*B)->getBuffer());
  if (!R.Metric) {
    Err = "--metric '" + C.Metric + "' found no number in the output (" +
          OutFile.str() + "):" + tail(OutFile);
    return false;
  }
  return true;
}

} // namespace hmplace
