//===- Reports.h - hmplan reports: the runtime's JSON reports of a job ----===//
#ifndef HMPLACE_HMPLAN_REPORTS_H
#define HMPLACE_HMPLAN_REPORTS_H

#include "plan/Diag.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace hmplace {

/// Reads the JSON reports (HMPLACE_REPORT=json:report.%r.json) of the ranks
/// of a job and prints one line per rank and kind, then per kind the job's
/// totals. Returns the number of reports read; problems are reported to \p D.
unsigned summarizeReports(const std::vector<std::string> &Files, DiagEngine &D,
                          llvm::raw_ostream &OS);

} // namespace hmplace

#endif
