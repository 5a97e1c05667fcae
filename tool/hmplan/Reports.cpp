//===- Reports.cpp - one table from the per-rank reports of an MPI job ----===//
//
// Each rank of a job writes its own report (json:report.%r.json); what a user
// wants to see is whether the ranks that share a node stayed within their
// share of its HBM, and what the whole job placed.
//
//===----------------------------------------------------------------------===//
#include "Reports.h"
#include "plan/BoundedRead.h"

#include "plan/Plan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace hmplace {

namespace {
struct Row {
  int64_t Rank = -1, RanksOnNode = -1;
  std::string Kind;
  uint64_t Allocs = 0, Bytes = 0, Peak = 0, Budget = 0, Fallbacks = 0;
  std::map<int, uint64_t> Pages;
};
} // namespace

/// Field \p K of \p O, a count (0 where the report has none); a value that
/// is no count (negative, fractional, text) is said in \p Problem.
static uint64_t num(const json::Object &O, StringRef K, std::string &Problem) {
  const json::Value *V = O.get(K);
  if (!V)
    return 0;
  std::optional<int64_t> I = V->getAsInteger();
  if (I && *I >= 0)
    return uint64_t(*I);
  if (std::optional<uint64_t> U = V->getAsUINT64())
    return *U;
  std::string Text;
  raw_string_ostream(Text) << *V;
  if (Problem.empty())
    Problem = "\"" + K.str() + "\" is " + Text + ", not a count";
  return 0;
}

static std::string pages(const std::map<int, uint64_t> &P) {
  std::string S;
  for (const auto &[Node, N] : P)
    S += (S.empty() ? "" : ",") + ("node" + Twine(Node) + ":" + Twine(N)).str();
  return S.empty() ? "-" : S;
}

/// The byte columns share one unit, the largest that the biggest figure of
/// the table reaches, so that a column never mixes `4194304` and `8MiB`.
struct ByteUnit {
  const char *Name = "B";
  unsigned Shift = 0;
  explicit ByteUnit(uint64_t Max) {
    static const char *Names[] = {"KiB", "MiB", "GiB", "TiB"};
    for (unsigned I = 0; I < 4; ++I)
      if (Max >= (1ULL << (10 * (I + 1)))) {
        Name = Names[I];
        Shift = 10 * (I + 1);
      }
  }
  std::string operator()(uint64_t Bytes) const {
    if ((Bytes & ((1ULL << Shift) - 1)) == 0)
      return std::to_string(Bytes >> Shift);
    double V = double(Bytes) / double(1ULL << Shift);
    return V < 0.005 ? "<0.01" : formatv("{0:F2}", V).str();
  }
};

static void printRow(raw_ostream &OS, StringRef Rank, StringRef PerNode,
                     const Row &R, const ByteUnit &U) {
  OS << right_justify(Rank, 5) << " " << right_justify(PerNode, 10) << "  "
     << left_justify(R.Kind, 24) << right_justify(Twine(R.Allocs).str(), 8)
     << right_justify(U(R.Bytes), 14) << right_justify(U(R.Peak), 16)
     << right_justify(R.Budget ? U(R.Budget) : "-", 12)
     << right_justify(Twine(R.Fallbacks).str(), 10) << "  " << pages(R.Pages)
     << "\n";
}

unsigned summarizeReports(const std::vector<std::string> &Files, DiagEngine &D,
                          raw_ostream &OS) {
  std::vector<Row> Rows;
  unsigned Read = 0;
  for (const std::string &F : Files) {
    std::string Err;
    std::unique_ptr<MemoryBuffer> Buf = readBounded(F, InputKind::Report, Err);
    if (!Buf) {
      D.report(F, Severity::Error, "cannot read: " + Err);
      continue;
    }
    Expected<json::Value> V = json::parse(Buf->getBuffer());
    if (!V) {
      D.report(F, Severity::Error,
               "not a HmPlace JSON report: " + toString(V.takeError()));
      continue;
    }
    const json::Object *Top = V->getAsObject();
    const json::Array *Kinds = Top ? Top->getArray("kinds") : nullptr;
    if (!Kinds) {
      D.report(F, Severity::Error,
               "not a HmPlace JSON report: no \"kinds\" list");
      continue;
    }
    std::vector<Row> FileRows;
    std::string Problem;
    for (const json::Value &KV : *Kinds) {
      const json::Object *K = KV.getAsObject();
      if (!K) {
        Problem = "an entry of \"kinds\" is not an object";
        break;
      }
      Row R;
      R.Rank = Top->getInteger("rank").value_or(-1);
      R.RanksOnNode = Top->getInteger("ranks_on_node").value_or(-1);
      R.Kind = K->getString("kind").value_or("?").str();
      R.Allocs = num(*K, "allocs", Problem);
      R.Bytes = num(*K, "bytes", Problem);
      R.Peak = num(*K, "peak_live", Problem);
      R.Budget = num(*K, "budget", Problem);
      R.Fallbacks = num(*K, "fallbacks", Problem);
      if (const json::Object *P = K->getObject("pages_by_node"))
        for (const auto &[Node, N] : *P) {
          int Id;
          if (!to_integer(StringRef(Node), Id, 10) || Id < 0) {
            Problem = "\"pages_by_node\" names node '" + Node.str() + "'";
            continue;
          }
          R.Pages[Id] += num(*P, Node, Problem);
        }
      if (!Problem.empty()) {
        Problem = "kind " + R.Kind + ": " + Problem;
        break;
      }
      FileRows.push_back(std::move(R));
    }
    if (!Problem.empty()) {
      D.report(F, Severity::Error,
               "not a HmPlace JSON report: " + Problem + "; left out");
      continue;
    }
    ++Read;
    Rows.insert(Rows.end(), FileRows.begin(), FileRows.end());
  }
  llvm::sort(Rows, [](const Row &A, const Row &B) {
    return std::tie(A.Rank, A.Kind) < std::tie(B.Rank, B.Kind);
  });
  std::map<std::string, Row> Total;
  for (const Row &R : Rows) {
    Row &T = Total[R.Kind];
    T.Kind = R.Kind;
    T.Allocs += R.Allocs;
    T.Bytes += R.Bytes;
    T.Peak += R.Peak;
    T.Budget += R.Budget;
    T.Fallbacks += R.Fallbacks;
    for (const auto &[Node, N] : R.Pages)
      T.Pages[Node] += N;
  }
  uint64_t Max = 0;
  for (const auto &[K, T] : Total)
    Max = std::max({Max, T.Bytes, T.Peak, T.Budget});
  ByteUnit U(Max);
  OS << right_justify("rank", 5) << " " << right_justify("ranks/node", 10)
     << "  " << left_justify("kind", 24) << right_justify("allocs", 8)
     << right_justify(("requested " + Twine(U.Name)).str(), 14)
     << right_justify(("peak usable " + Twine(U.Name)).str(), 16)
     << right_justify(("budget " + Twine(U.Name)).str(), 12)
     << right_justify("fallbacks", 10) << "  pages by node\n";
  for (const Row &R : Rows)
    printRow(OS, R.Rank < 0 ? "-" : Twine(R.Rank).str(),
             R.RanksOnNode < 0 ? "-" : Twine(R.RanksOnNode).str(), R, U);
  for (const auto &[K, T] : Total)
    printRow(OS, "all", "", T, U);
  OS << Read << " report" << (Read == 1 ? "" : "s") << " read\n";
  return Read;
}

} // namespace hmplace
