//===- Split.h - targets that split an object across kinds -----*- C++ -*-===//
///
/// \file
/// A plan entry may send an object's pages to several kinds in shares,
/// `kind: {hbm: 75%, ddr: 25%}` (tier names, kinds or aliases; whole
/// percentages adding up to 100; two or three parts; no share to the
/// ordinary heap, whose blocks are not pages of one mapping). The runtime
/// takes such a target as one int, a *placement code* (hmplace.h's
/// HMPLACE_SPLIT): the kinds and percentages packed with a flag bit, which
/// both front ends compute here, so that they write the same constant.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PLAN_SPLIT_H
#define HMPLACE_PLAN_SPLIT_H

#include "plan/Plan.h"

#include <string>
#include <utility>
#include <vector>

namespace hmplace {

/// The runtime's code for \p T: its kind's index in enum hmplace_kind, -1
/// for the ordinary heap, or for a split the packed HMPLACE_SPLIT value.
int runtimeCode(const Target &T);
/// The source text of a runtime code: `HMPLACE_HBW`, `HMPLACE_HEAP`,
/// `HMPLACE_SPLIT(HMPLACE_HBW, 75, HMPLACE_REGULAR)`.
std::string runtimeCodeText(int Code);
/// How remarks name a runtime code: `MEMKIND_HBW`, `the ordinary heap`,
/// `MEMKIND_HBW 75% + MEMKIND_REGULAR 25%`.
std::string runtimeCodeName(int Code);
/// Whether \p Code is a split's.
bool isSplitCode(int Code);
/// The kinds of \p Code (indexes in enum hmplace_kind, -1 for the ordinary
/// heap) and their percentages: one part of 100 unless it is a split's.
std::vector<std::pair<int, unsigned>> runtimeCodeParts(int Code);

/// Resolve the parts of a split target (\p T.Parts with their spellings and
/// percentages set) against \p P: kinds, the largest share's kind, the
/// canonical spelling. Returns "" or what is wrong with it.
std::string resolveSplit(const Plan &P, Target &T);
/// Parse a split's canonical spelling (`{hbm: 75%, ddr: 25%}`, as
/// Target::Spelling holds it) into \p T and resolve it; "" or the error.
std::string parseSplitSpelling(const Plan &P, llvm::StringRef Text, Target &T);
/// Parse `75%` (or `75`); the error, or "".
std::string parsePercent(llvm::StringRef Text, unsigned &Out);

} // namespace hmplace

#endif
