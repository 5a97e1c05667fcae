//===- AdvisorParts.h - what the advisor's files share ---------*- C++ -*-===//
///
/// \file
/// The advisor in three files: Advisor.cpp decides (the model and the
/// choice), AdvisedPlan.cpp writes and checks the plan, Explain.cpp prints
/// `--explain` and `--curve`. This is what they share: a unit's figures as
/// the choice sees them, the timeline, and how contexts and frames are
/// named.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_ADVISORPARTS_H
#define HMPLACE_HMPLAN_ADVISORPARTS_H

#include "Advisor.h"
#include "plan/Diag.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <vector>

namespace hmplace {

/// A unit as the choice sees it.
struct Item {
  const PlanUnit *U;
  double Gain, Miss;
  size_t Lo, Hi;   ///< cut indices of its lifetime
  std::string Key; ///< frames, for a stable order
  bool Nameable;   ///< an entry can name its allocation call
  std::vector<const ProfileFrame *> Frames; ///< entryFrames
};

using Decisions = std::map<const Item *, ContextDecision>;

/// Time cut at every unit's first and last moment: the points the capacity
/// is checked at.
struct Timeline {
  std::vector<uint64_t> Cuts;
  explicit Timeline(const std::vector<PlanUnit> &Units);
  size_t at(uint64_t T) const;
  size_t size() const { return std::max<size_t>(Cuts.size(), 1); }
};

/// Whether \p C is allocated inside the C++ library (a container's buffer,
/// make_unique): an entry names it by `std::allocator` and the user's
/// frames (Context.h).
bool isContainer(const ProfileContext &C);
/// The frames a plan entry may name, innermost first: the allocation call
/// (for a container, none: `std::allocator` stands for it), then the
/// user's.
std::vector<const ProfileFrame *> entryFrames(const ProfileContext &C);
/// The outermost of the library frames a context starts with: the function
/// the user called (`std::vector<double>::vector`).
const ProfileFrame *libraryEntry(const ProfileContext &C);
/// A library function as people call it: `std::vector::vector`.
std::string libraryName(llvm::StringRef Name);
/// "xmalloc < main": the functions of the frames an entry can name.
std::string describe(const ProfileContext &C);
/// Whether an entry can name \p C's allocation call at all.
bool nameable(const ProfileContext &C);
/// What an entry can name of \p C; contexts with the same key are one unit.
std::string unitKey(const ProfileContext &C);
/// "file:line:col" as the plan names it.
std::string planFrame(const ProfileFrame &F, const PlanPathNamer &Names);
/// "1.2%".
std::string percent(double V);
/// "1 access", "3 objects".
std::string count(uint64_t N, llvm::StringRef One, llvm::StringRef Many);

/// Write the plan for the decisions (entries, tiers, notes) into
/// \p Out.PlanText and check it with the front ends' matcher.
bool writeAdvisedPlan(const std::vector<Item> &Items, Decisions &Dec,
                      const AdviseOptions &Opts, size_t NumContexts,
                      Advice &Out, DiagEngine &D);

} // namespace hmplace

#endif
