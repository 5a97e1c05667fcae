//===- Advisor.h - a placement plan from a memory profile -------*- C++ -*-===//
///
/// \file
/// `hmplan advise`: which allocation contexts go to HBM (and, when DDR is
/// short, which go to a slow tier), under each tier's capacity, as a plan
/// for people to review. The model (docs/advisor.md):
///
///  - The gain of a context is the accesses that would be served by HBM
///    instead of DDR. MemProf counts every access, cached or not, and sees
///    no bandwidth; data that fits in the last-level cache is mostly served
///    by the cache either way. So each access counts with the chance that
///    it misses the cache, taken as S / (S + LLC) where S is the bytes the
///    context keeps live together (one array, or a thousand rows swept
///    together): a quarter of the LLC counts 20%, the LLC's size 50%, ten
///    times it 91%.
///  - The capacity bounds the bytes *live at once* in a tier, counted as the
///    runtime counts them (its size classes and alignment, runtime/
///    sizeclass.h), not the sum of every allocation: each context holds up
///    to its peak from its first possible allocation to its last free (a
///    context with one object: exactly its lifetime).
///  - The choice maximises the summed gain under that bound (Knapsack.h).
///    Contexts below a minimal share of the gain are not placed, nor those
///    whose allocations would cost more on the placed path than HBM saves
///    them (PlacedCost.h).
///  - With a DDR capacity and a slow tier (pmem, cxl), the contexts with the
///    least gain per byte move to the slow tier until DDR holds the rest.
///
/// Each context becomes the shortest entry that tells it apart from the
/// contexts of the same allocation call that go elsewhere (one frame when
/// all go alike), so that the fewest calls must note themselves; the plan
/// is then checked with the matcher both front ends use (AdvisedPlan.cpp).
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_ADVISOR_H
#define HMPLACE_HMPLAN_ADVISOR_H

#include "Knapsack.h"
#include "MemProfile.h"
#include "PlacedCost.h"
#include "Shares.h"
#include "plan/PlanPaths.h"

#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hmplace {

class Plan;

struct AdviseOptions {
  /// Tier name (hbm, ddr, pmem, cxl) -> capacity in bytes.
  std::map<std::string, uint64_t> Capacity;
  uint64_t LLC = 32ull << 20; ///< last-level cache, bytes
  /// Its ways, for the measured misses: 0, fully associative (MissModel).
  unsigned LLCWays = 0;
  std::string LLCSource;      ///< where LLC came from, for the plan's note
  double MinShare = 0.001;    ///< of the summed gain, to be placed at all
  std::string Binary;         ///< for the plan's note
  /// The plan's directory: files are named relative to it, or to their
  /// common directory (PlanPaths.h).
  std::string PlanDir;
  unsigned Profiles = 0;
  /// The tiers' bandwidths (--bandwidth, --machine): with them the shares
  /// follow the bandwidth model (Shares.h).
  Bandwidths BW;
  bool Whole = false; ///< --whole: no split entries
  /// What the gain is: the misses the runs measured where every profile has
  /// them (Auto), those or an error (Misses), or the chance of a miss from
  /// the bytes a context keeps live (LiveBytes, the model before).
  enum class GainFrom { Auto, Misses, LiveBytes } Gain = GainFrom::Auto;
  /// What a placed allocation costs against what HBM saves (PlacedCost.h).
  PlacedCost Cost = PlacedCost::make({}, 0, -1);
};

/// What one plan entry can name: a context, or several whose stacks differ
/// only in frames no build notes (the C++ library's, or code outside the
/// binary). One entry would claim them all, so they are decided together.
struct PlanUnit {
  ProfileContext Sum; ///< the first context's frames, every figure summed
  /// Bytes live at once as requested: what the cache sees. The contexts'
  /// peaks added.
  uint64_t Peak = 0;
  /// The same in the runtime's usable bytes (size classes, alignment):
  /// what it holds of a tier's capacity.
  uint64_t Usable = 0;
  unsigned Stacks = 0;
};

/// The decision for one unit.
struct ContextDecision {
  const PlanUnit *U = nullptr;
  std::string Tier; ///< "hbm", "pmem", ... or "" for where malloc puts it
  /// The misses HBM would serve: measured at the LLC, or accesses x the
  /// chance of a miss.
  double Gain = 0;
  double MissChance = 0; ///< measured: misses / sampled accesses
  std::string Reason;
  unsigned FramesUsed = 0; ///< frames of its plan entry; 0: it has none
  /// Percent of its pages in Tier (100: whole; less: a split entry, the
  /// rest in DDR).
  unsigned Share = 100;
  bool Candidate = false; ///< worth placing, and an entry can name it
};

struct Advice {
  std::vector<PlanUnit> Units;
  std::vector<ContextDecision> Decisions; ///< by gain, largest first
  std::string PlanText;                   ///< YAML
  double TotalGain = 0;
  uint64_t TotalAccesses = 0;
  PlanPathNamer Names; ///< how the plan (and the reports) name files
  ProfileBlindSpots Blind;
  /// What the runs measured of misses; with them for every profile the
  /// gain is the measured misses at the LLC (Measured true).
  ProfileMisses Misses;
  bool Measured = false;
  uint64_t LLC = 0;     ///< the LLC the gain is at, bytes
  unsigned LLCWays = 0; ///< and its ways
  KnapModel Model;    ///< the fast tier's choice, as the model saw it
  ShareChoice Shares; ///< with shares, and the bandwidth model's times
  Bandwidths BW;      ///< as AdviseOptions::BW
  bool Whole = false; ///< as AdviseOptions::Whole
  PlacedCost Cost;    ///< as AdviseOptions::Cost
};

/// Decide every context and write the plan. Reports (through \p D) the
/// contexts the plan's entries would not give the kind chosen, and returns
/// false on an error.
bool advise(const std::vector<ProfileContext> &Contexts,
            const AdviseOptions &Opts, Advice &Out, DiagEngine &D);

/// `--explain`: a table, a context a row: its figures, decision and reason;
/// then what the profiles could not show.
void printExplanation(const Advice &A, llvm::raw_ostream &OS);
/// `--curve`: the share of all accesses (and of the weighted gain) that an
/// HBM capacity covers, adding units by gain per byte.
void printCurve(const Advice &A, llvm::raw_ostream &OS);

/// The runtime code (plan/Split.h: a kind's index, -1 the ordinary heap,
/// a split's packed code) \p P's entries give each of \p Contexts, as the
/// front ends and the runtime would decide; nothing where entries
/// conflict. Contexts no entry can name: -1.
std::vector<std::optional<int>>
planCodes(const std::vector<ProfileContext> &Contexts, const Plan &P);

/// "12.3%": \p Part of \p Whole.
std::string share(double Part, double Whole);

} // namespace hmplace

#endif
