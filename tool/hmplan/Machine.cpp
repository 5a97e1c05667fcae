//===- Machine.cpp - what the advisor reads of this machine ---------------===//
//
// sysfs files report a size of 4096 whatever they hold: they are read as
// streams, to their end (a read of the reported size fails).
//
//===----------------------------------------------------------------------===//
#include "Machine.h"
#include "Tiers.h"
#include "plan/BoundedRead.h"
#include "plan/Kinds.h"
#include "plan/YamlTree.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdlib>
#include <optional>
#include <set>

using namespace llvm;

namespace hmplace {

namespace {

std::optional<std::string> readSys(const std::string &Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B =
      MemoryBuffer::getFileAsStream(Path);
  if (!B)
    return std::nullopt;
  return (*B)->getBuffer().trim().str();
}

std::string cpuDir(const std::string &Root, unsigned CPU) {
  return Root + "/devices/system/cpu/cpu" + utostr(CPU) + "/cache";
}

/// One cache of a CPU, as sysfs describes it.
struct Cache {
  unsigned Level = 0;
  uint64_t Size = 0;
  std::string Shared; ///< the CPUs that share it ("0-7")
};

/// The highest-level data or unified cache of \p CPU, if sysfs has one.
std::optional<Cache> lastLevel(const std::string &Root, unsigned CPU) {
  std::optional<Cache> Best;
  for (unsigned I = 0; I < 16; ++I) {
    std::string Dir = cpuDir(Root, CPU) + "/index" + utostr(I) + "/";
    std::optional<std::string> Level = readSys(Dir + "level");
    std::optional<std::string> Size = readSys(Dir + "size");
    std::optional<std::string> Type = readSys(Dir + "type");
    if (!Level || !Size)
      continue;
    if (Type && *Type == "Instruction")
      continue;
    std::string Err;
    std::optional<uint64_t> Bytes = parseSize(*Size, Err);
    unsigned L = 0;
    if (!Bytes || !*Bytes || !to_integer(*Level, L))
      continue;
    if (!Best || L > Best->Level)
      Best = Cache{L, *Bytes, readSys(Dir + "shared_cpu_list").value_or("")};
  }
  return Best;
}

/// How many distinct caches of \p Level the machine's CPUs have.
unsigned instances(const std::string &Root, unsigned Level) {
  std::set<std::string> Lists;
  for (unsigned CPU = 0; CPU < 8192; ++CPU) {
    if (!readSys(cpuDir(Root, CPU) + "/index0/level"))
      break;
    std::optional<Cache> C = lastLevel(Root, CPU);
    if (C && C->Level == Level)
      Lists.insert(C->Shared);
  }
  return std::max<size_t>(Lists.size(), 1);
}

/// One tier of a machine description: a tier the advisor knows, once, with
/// a finite bandwidth and a capacity above 0.
/// A key of a machine description none of \p Known names: a warning at it.
void warnUnknownKey(const YamlNode &Key, std::vector<std::string> Known,
                    const std::string &Where, DiagEngine &D) {
  std::string Near = closestName(Key.Text, Known);
  D.report(Key.Loc, Severity::Warning,
           "unknown key '" + Key.Text + "' in " + Where + ", ignored" +
               (Near.empty()
                    ? std::string(" (expected ") + join(Known, ", ") + ")"
                    : " (did you mean '" + Near + "'?)"));
}

bool readMachineTier(const YamlPair &T,
                     std::map<TierRole, const YamlPair *> &Seen, MachineFile &M,
                     DiagEngine &D) {
  const AdvisorTier *Tier = findAdvisorTier(T.Key.Text);
  if (!Tier) {
    D.report(T.Key.Loc, Severity::Error,
             "unknown tier '" + T.Key.Text + "' (expected " +
                 advisorTierList() + ")");
    return false;
  }
  auto [It, New] = Seen.try_emplace(Tier->Role, &T);
  if (!New) {
    D.report(T.Key.Loc, Severity::Error,
             "tier '" + T.Key.Text + "' given twice");
    D.report(It->second->Key.Loc, Severity::Note,
             "'" + It->second->Key.Text + "' is here");
    return false;
  }
  bool OK = true;
  for (const YamlPair &F : T.Value.Pairs) {
    std::string Problem;
    if (F.Key.Text == "bandwidth") {
      double Rate = 0;
      Problem = parseRate(F.Value.Text, Rate);
      if (Tier->Role == TierRole::Fast)
        M.BW.Fast = Rate;
      else if (Tier->Role == TierRole::DDR)
        M.BW.Slow = Rate;
    } else if (F.Key.Text == "capacity") {
      std::optional<uint64_t> C = parseSize(F.Value.Text, Problem);
      if (C && !*C)
        Problem = "a capacity of 0";
      else if (C)
        M.Capacity[T.Key.Text] = *C;
    } else if (F.Key.Text != "nodes")
      warnUnknownKey(F.Key, {"bandwidth", "capacity", "nodes"},
                     "tier '" + T.Key.Text + "'", D);
    if (!Problem.empty()) {
      D.report(F.Value.Loc, Severity::Error, Problem);
      OK = false;
    }
  }
  return OK;
}

/// The top level's `machine:` line, the format's version: 1, or said.
bool checkVersion(const YamlNode &Root, DiagEngine &D) {
  for (const YamlPair &P : Root.Pairs)
    if (P.Key.Text == "machine") {
      if (P.Value.isScalar() && P.Value.Text == "1")
        return true;
      D.report(P.Value.Loc.isValid() ? P.Value.Loc : P.Key.Loc, Severity::Error,
               "machine description version '" + P.Value.Text +
                   "' is not one this hmplan reads (1)");
      return false;
    }
  D.report(Root.Loc, Severity::Warning,
           "no 'machine: 1' line: read as a machine description of version "
           "1 (hmplan probe writes the line)");
  return true;
}

/// The `nodes:` list hmplan probe writes (what advise does not use, checked
/// all the same: a value it cannot read is an error at its place).
bool checkNodes(const YamlNode &Nodes, DiagEngine &D) {
  if (!Nodes.isSeq()) {
    D.report(Nodes.Loc, Severity::Error, "'nodes' is not a list");
    return false;
  }
  bool OK = true;
  for (const YamlNode &N : Nodes.Items)
    for (const YamlPair &F : N.Pairs) {
      std::string Problem;
      unsigned long long Id;
      double Rate;
      if (F.Key.Text == "node") {
        if (getAsUnsignedInteger(F.Value.Text, 10, Id))
          Problem = "'" + F.Value.Text + "' is not a node number";
      } else if (F.Key.Text == "capacity") {
        parseSize(F.Value.Text, Problem);
      } else if (F.Key.Text == "bandwidth" ||
                 F.Key.Text == "hmat-read-bandwidth") {
        Problem = parseRate(F.Value.Text, Rate);
      } else {
        warnUnknownKey(F.Key,
                       {"node", "cpus", "capacity", "bandwidth",
                        "measured-from", "hmat-read-bandwidth", "memkind",
                        "tier"},
                       "a node", D);
      }
      if (!Problem.empty()) {
        D.report(F.Value.Loc.isValid() ? F.Value.Loc : F.Key.Loc,
                 Severity::Error, Problem);
        OK = false;
      }
    }
  return OK;
}

} // namespace

uint64_t detectLLC(std::string &Source) {
  const char *Env = std::getenv("HMPLACE_SYSFS");
  std::string Root = Env && *Env ? Env : "/sys";
  std::optional<Cache> C = lastLevel(Root, 0);
  if (!C) {
    Source = "the default: this machine does not say; --llc sets it";
    return 32ull << 20;
  }
  unsigned N = instances(Root, C->Level);
  Source = "L" + utostr(C->Level) + " of cpu0, from sysfs";
  if (!C->Shared.empty())
    Source += ", shared by CPUs " + C->Shared;
  if (N > 1)
    Source += "; one of " + utostr(N) +
              " such caches: a process spanning several has more, --llc "
              "sets it";
  return C->Size;
}

bool readMachineFile(StringRef Path, MachineFile &M, DiagEngine &D) {
  std::string Why;
  std::unique_ptr<MemoryBuffer> Buf =
      readBounded(Path, InputKind::Machine, Why);
  if (!Buf) {
    D.report(Path, Severity::Error,
             "cannot read the machine description: " + Why);
    return false;
  }
  unsigned Id = D.addBuffer(std::move(Buf));
  YamlNode Root;
  SMLoc ErrLoc;
  std::string Err;
  if (!parseYamlTree(D.buffer(Id)->getMemBufferRef(), Root, ErrLoc, Err)) {
    D.report(ErrLoc, Severity::Error, Err);
    return false;
  }
  const YamlNode *Tiers = nullptr;
  for (const YamlPair &P : Root.Pairs)
    if (P.Key.Text == "tiers")
      Tiers = &P.Value;
  if (!Root.isMap() || !Tiers || !Tiers->isMap()) {
    D.report(Root.Loc.isValid() ? Root.Loc : SMLoc(), Severity::Error,
             "not a machine description: expected 'tiers:' (hmplan probe "
             "writes one)");
    return false;
  }
  bool OK = checkVersion(Root, D);
  for (const YamlPair &P : Root.Pairs)
    if (P.Key.Text == "nodes")
      OK &= checkNodes(P.Value, D);
    else if (P.Key.Text != "tiers" && P.Key.Text != "machine" &&
             P.Key.Text != "host")
      warnUnknownKey(P.Key, {"machine", "host", "nodes", "tiers"},
                     "the machine description", D);
  std::map<TierRole, const YamlPair *> Seen;
  for (const YamlPair &T : Tiers->Pairs)
    OK &= readMachineTier(T, Seen, M, D);
  return OK;
}

} // namespace hmplace
