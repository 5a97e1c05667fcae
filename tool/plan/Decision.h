//===- Decision.h - what a front end does with a call -----------*- C++ -*-===//
///
/// \file
/// SiteMatcher says which entries name a call; this says what every front
/// end then does with it and what it tells the user, so that hmrewrite's
/// source edits and HmPlace.so's IR edits come from one decision and their
/// remarks read the same (the equivalence tests compare them).
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PLAN_DECISION_H
#define HMPLACE_PLAN_DECISION_H

#include "plan/Plan.h"

#include <cstdint>
#include <optional>
#include <string>

namespace hmplace {

struct SiteDecision {
  enum Action {
    Leave,          ///< no entry names the call
    NotPlaced,      ///< entries name it but do not decide it (Remark: why)
    KeepOnHeap,     ///< the plan keeps it on the ordinary heap
    Place,          ///< in one kind: RuntimeKind
    PlaceByCallers, ///< by the caller chain at run time: Table
  };
  Action Act = Leave;
  const PlanEntry *Entry = nullptr; ///< KeepOnHeap, Place: the entry
  int RuntimeKind = -1;             ///< Place: index in enum hmplace_kind
  /// Place: only sizes in this window (the entry's); others stay on the
  /// ordinary heap, decided by the call at run time.
  std::optional<uint64_t> MinSize, MaxSize;
  bool windowed() const { return MinSize || MaxSize; }
  /// PlaceByCallers: the table (contextTableText), the argument text of
  /// HMPLACE_BY_CALLERS in a source and the string HmPlace.so passes.
  std::string Table;
  /// What both front ends say about the call (a remark, or for NotPlaced a
  /// missed remark / warning).
  std::string Remark;
  bool places() const { return Act == Place || Act == PlaceByCallers; }
};

/// The decision for the allocation call \p What (malloc, operator new[], ...)
/// at \p Key, given the matcher's placement \p P. \p NoSizeWhy, if not
/// empty, says why the front end cannot check this call's size: an entry
/// with a size window then places nothing here.
SiteDecision decideSite(const Placement &P, const SourcePos &Key,
                        llvm::StringRef What, llvm::StringRef NoSizeWhy = "");

/// The remark for a call at \p Key noted as a caller frame.
std::string notedRemark(const SourcePos &Key);
/// HmPlace.so's remark for a call given a copy of its callee in which the
/// sites it decides have constant kinds (CallerCopies.h).
std::string copiedRemark(const SourcePos &Key, llvm::StringRef Callee);
/// The remark for an OpenMP parallel region at \p Key noted as a caller
/// frame (in every thread that runs it).
std::string regionNotedRemark(const SourcePos &Key);
/// The message for a caller frame at \p Key that cannot be noted.
std::string notNotedMessage(const SourcePos &Key, llvm::StringRef Why);

} // namespace hmplace

#endif
