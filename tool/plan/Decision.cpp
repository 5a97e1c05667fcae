//===- Decision.cpp - what a front end does with a call, and says of it ---===//
#include "plan/Decision.h"
#include "plan/AllocFns.h"
#include "plan/Kinds.h"
#include "plan/Split.h"

using namespace llvm;

namespace hmplace {

/// "1MiB..5MiB", ">= 1MiB", "<= 5MiB": a window as remarks show it.
static std::string windowText(std::optional<uint64_t> Min,
                              std::optional<uint64_t> Max) {
  if (Min && Max)
    return formatSize(*Min) + ".." + formatSize(*Max);
  return Min ? ">= " + formatSize(*Min) : "<= " + formatSize(*Max);
}

/// An entry with a size window among those a contextual placement chooses
/// from at run time, or null.
static const PlanEntry *windowedChoice(const Placement &P) {
  for (const ContextChoice &Ch : P.Choices)
    if (Ch.Entry && Ch.Entry->hasWindow())
      return Ch.Entry;
  return P.Entry && P.Entry->hasWindow() ? P.Entry : nullptr;
}

SiteDecision decideSite(const Placement &P, const SourcePos &Key,
                        StringRef What, StringRef NoSizeWhy) {
  SiteDecision D;
  if (P.State == Placement::Unplanned)
    return D; // the common case: no text to build
  std::string At = What.str() + " at " + Key.str();
  // hbw_malloc and friends: the front ends call their C counterpart.
  const AllocFn *Fn = findAllocFn(What);
  const char *HeapForm = Fn ? Fn->Heap : nullptr;
  switch (P.State) {
  case Placement::Unplanned:
    return D;
  case Placement::Conflict:
    D.Act = SiteDecision::NotPlaced;
    D.Remark = At + " not placed: " + P.Reason;
    return D;
  case Placement::Contextual:
    // The runtime's caller tables carry no sizes: a window there would be
    // ignored, and place more than the plan asks.
    if (const PlanEntry *E = windowedChoice(P)) {
      D.Act = SiteDecision::NotPlaced;
      D.Remark = At + " not placed: plan entry '" + E->key() +
                 "' has a size window, which call-stack entries do not "
                 "take yet";
      return D;
    }
    // Callers no entry names fall back to the ordinary heap: an hbw call
    // would leave HBW for them.
    if (HeapForm && !P.Entry) {
      D.Act = SiteDecision::NotPlaced;
      D.Remark = At + " not placed: its call-stack entries leave the callers "
                      "they do not name on the ordinary heap, not in "
                      "high-bandwidth memory; add a site entry for this call "
                      "(kind hbw-preferred keeps the others where they were)";
      return D;
    }
    D.Act = SiteDecision::PlaceByCallers;
    D.Table = P.Container
                  ? contextTableText(ContainerSite, P.Choices, P.fallbackKind())
                  : contextTableText(Key, P.Choices, P.fallbackKind());
    D.Remark = "placed " + At + " by its callers (" + P.contextSummary() + ")";
    return D;
  case Placement::Placed:
    break;
  }
  D.Entry = P.Entry;
  const KindInfo &K = *P.Entry->To.Kind;
  if (K.isHeap()) {
    D.Act = SiteDecision::KeepOnHeap;
    D.Remark = HeapForm ? At + " moved to the ordinary heap as " + HeapForm +
                              " (plan entry '" + P.Entry->key() + "')"
                        : At + " stays on the ordinary heap (plan entry '" +
                              P.Entry->key() + "')";
    return D;
  }
  // Outside its window the call would go to the ordinary heap, not to the
  // high-bandwidth memory it asked for: more moved than the plan says.
  if (HeapForm && P.Entry->hasWindow())
    NoSizeWhy = "outside the window this call's blocks must stay in "
                "high-bandwidth memory, which a window cannot express (place "
                "the site without one)";
  if (P.Entry->hasWindow() && !NoSizeWhy.empty()) {
    D.Act = SiteDecision::NotPlaced;
    D.Remark = At + " not placed: plan entry '" + P.Entry->key() +
               "' has a size window, but " + NoSizeWhy.str();
    return D;
  }
  D.Act = SiteDecision::Place;
  D.RuntimeKind = runtimeCode(P.Entry->To);
  D.MinSize = P.Entry->MinSize;
  D.MaxSize = P.Entry->MaxSize;
  D.Remark =
      "placed " + At + " in " + P.Entry->To.kindText() +
      (D.windowed() ? " for sizes " + windowText(D.MinSize, D.MaxSize) : "") +
      " (plan entry '" + P.Entry->key() + "')";
  return D;
}

std::string copiedRemark(const SourcePos &Key, StringRef Callee) {
  return "call at " + Key.str() +
         " decides its call-stack entries when compiled: it calls a copy of " +
         Callee.str() + " made for it";
}

std::string notedRemark(const SourcePos &Key) {
  return "call at " + Key.str() + " notes itself for call-stack entries";
}

std::string regionNotedRemark(const SourcePos &Key) {
  return "OpenMP region at " + Key.str() +
         " notes itself for call-stack entries in every thread that runs it";
}

std::string notNotedMessage(const SourcePos &Key, StringRef Why) {
  return "call at " + Key.str() +
         " is a caller frame of a call-stack entry but cannot be noted: " +
         Why.str() + "; entries through it place nothing";
}

} // namespace hmplace
