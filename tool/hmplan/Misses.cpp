//===- Misses.cpp - the misses a profiled run made, per context -----------===//
//
// A bucket's misses at a cache size are its accesses times the chance that
// an access at its distances misses (MissModel), the distances taken as
// spread evenly over the bucket (8 buckets per doubling: within 6%).
//
//===----------------------------------------------------------------------===//
#include "Misses.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <map>
#include <tuple>

using namespace llvm;

namespace hmplace {

double MissBuckets::lo(size_t B) const {
  if (B == 0)
    return 0;
  if (B > Count)
    return std::ldexp(double(Near), int(Count / PerOctave));
  size_t K = B - 1;
  return std::ldexp(double(Near), int(K / PerOctave)) *
         (1 + double(K % PerOctave) / PerOctave);
}

double MissBuckets::hi(size_t B) const {
  if (B == 0)
    return double(Near);
  if (B > Count)
    return HUGE_VAL;
  return lo(B) + std::ldexp(double(Near), int((B - 1) / PerOctave)) / PerOctave;
}

void MissCurve::add(const MissCurve &O) {
  if (O.empty())
    return;
  if (empty()) {
    *this = O;
    return;
  }
  for (size_t B = 0; B < All.size(); ++B) {
    All[B] += O.All[B];
    Stream[B] += O.Stream[B];
    Write[B] += O.Write[B];
  }
}

double MissCurve::accesses() const {
  double S = 0;
  for (double C : All)
    S += C;
  return S;
}

namespace {

/// P(X >= W) for X ~ Poisson(\p Mean).
double poissonTail(double Mean, unsigned W) {
  if (Mean <= 0)
    return 0;
  double Term = std::exp(-Mean), Below = Term;
  for (unsigned K = 1; K < W; ++K) {
    Term *= Mean / K;
    Below += Term;
  }
  return std::max(0.0, 1 - Below);
}

/// The chance that an access at a distance in [Lo, Hi) misses, the
/// distances taken as spread evenly over the bucket.
double missChance(double Lo, double Hi, double Lines, unsigned Ways) {
  if (std::isinf(Hi))
    return 1;
  if (!Ways) // fully associative: the part of the bucket at or past Lines
    return Lo >= Lines ? 1 : Hi > Lines ? (Hi - Lines) / (Hi - Lo) : 0;
  double Sets = std::max(1.0, Lines / Ways), Sum = 0;
  const unsigned Steps = 8;
  for (unsigned I = 0; I < Steps; ++I)
    Sum += poissonTail((Lo + (Hi - Lo) * (I + 0.5) / Steps) / Sets, Ways);
  return Sum / Steps;
}

/// One model per cache, kept: every context's curve is read for the same
/// few caches.
const MissModel &modelFor(const MissBuckets &B, double Lines, unsigned Ways) {
  static std::map<std::tuple<uint64_t, unsigned, unsigned, double, unsigned>,
                  MissModel>
      Models;
  auto Key = std::make_tuple(B.Near, B.PerOctave, B.Count, Lines, Ways);
  auto It = Models.find(Key);
  if (It == Models.end())
    It = Models.emplace(Key, MissModel(B, Lines, Ways)).first;
  return It->second;
}

} // namespace

MissModel::MissModel(const MissBuckets &B, double Lines, unsigned Ways) {
  for (size_t K = 0; K < B.size(); ++K)
    Chance.push_back(missChance(B.lo(K), B.hi(K), Lines, Ways));
}

double MissModel::misses(const std::vector<double> &PerBucket) const {
  double S = 0;
  for (size_t K = 0; K < PerBucket.size() && K < Chance.size(); ++K)
    S += PerBucket[K] * Chance[K];
  return S;
}

double MissCurve::missesAt(double Lines, unsigned Ways) const {
  return empty() ? 0 : modelFor(Buckets, Lines, Ways).misses(All);
}

double MissCurve::streamShareAt(double Lines, unsigned Ways) const {
  double M = missesAt(Lines, Ways);
  return M > 0 ? std::min(1.0,
                          2 * modelFor(Buckets, Lines, Ways).misses(Stream) / M)
               : 0;
}

double MissCurve::writeShareAt(double Lines, unsigned Ways) const {
  double M = missesAt(Lines, Ways);
  return M > 0 ? modelFor(Buckets, Lines, Ways).misses(Write) / M : 0;
}

bool looksLikeMissFile(StringRef Data) {
  return Data.starts_with("hmplace-misses ");
}

namespace {

/// The parser's state: the file as lines, the one being read.
class MissParser {
public:
  MissParser(StringRef Path, StringRef Data, MissProfile &Out, DiagEngine &D)
      : Path(Path), Out(Out), D(D) {
    Buf = D.addBuffer(MemoryBuffer::getMemBufferCopy(Data, Path));
    Text = D.buffer(Buf)->getBuffer();
  }

  bool parse();

private:
  bool fail(StringRef At, const Twine &Msg) {
    size_t Col = At.data() - Line.data();
    D.report(D.locAt(Buf, LineNo, unsigned(Col)), Severity::Error, Msg);
    return false;
  }
  bool number(StringRef Word, uint64_t &V) {
    if (Word.getAsInteger(10, V))
      return fail(Word, "expected a number, found '" + Word + "'");
    return true;
  }
  bool header(StringRef Key, StringRef Rest, bool &Done);
  bool context(StringRef Rest);
  bool buckets(StringRef Rest);
  MissCurve &curve(uint64_t Id);

  StringRef Path, Text, Line;
  unsigned Buf = 0, LineNo = 0;
  MissProfile &Out;
  DiagEngine &D;
  MissBuckets Scheme;
  bool HaveBuckets = false;
};

MissCurve &MissParser::curve(uint64_t Id) {
  MissCurve &C = Out.ByContext[Id];
  if (C.empty()) {
    C.Buckets = Scheme;
    C.All.assign(Scheme.size(), 0);
    C.Stream.assign(Scheme.size(), 0);
    C.Write.assign(Scheme.size(), 0);
  }
  return C;
}

bool MissParser::buckets(StringRef Rest) {
  SmallVector<StringRef, 4> W;
  Rest.split(W, ' ', -1, false);
  uint64_t Near, Per, Count;
  if (W.size() != 3)
    return fail(Rest, "expected 'buckets NEAR PER-DOUBLING COUNT'");
  if (!number(W[0], Near) || !number(W[1], Per) || !number(W[2], Count))
    return false;
  if (!Near || !Per || Per > 64 || !Count || Count > 4096 || Count % Per)
    return fail(W[0], "a bucket scheme this reader does not know");
  Scheme = {Near, unsigned(Per), unsigned(Count)};
  HaveBuckets = true;
  return true;
}

bool MissParser::context(StringRef Rest) {
  if (!HaveBuckets)
    return fail(Rest, "a context before the 'buckets' line");
  SmallVector<StringRef, 64> W;
  Rest.split(W, ' ', -1, false);
  uint64_t Id;
  if (W.size() < 2 || !number(W[0], Id))
    return W.size() < 2 ? fail(Rest, "expected 'ctx ID SERIES B:COUNT...'")
                        : false;
  MissCurve &C = curve(Id);
  std::vector<double> *Series = W[1] == "all"      ? &C.All
                                : W[1] == "stream" ? &C.Stream
                                : W[1] == "write"  ? &C.Write
                                                   : nullptr;
  if (!Series)
    return fail(W[1], "unknown series '" + W[1] +
                          "' (expected all, stream or write)");
  for (size_t I = 2; I < W.size(); ++I) {
    auto [B, N] = W[I].split(':');
    uint64_t Bucket, Count;
    if (N.empty() && !W[I].contains(':'))
      return fail(W[I], "expected BUCKET:COUNT, found '" + W[I] + "'");
    if (!number(B, Bucket) || !number(N, Count))
      return false;
    if (Bucket >= Scheme.size())
      return fail(B, "bucket " + B + " is past the last, " +
                         Twine(Scheme.size() - 1));
    (*Series)[Bucket] += double(Count);
  }
  return true;
}

bool MissParser::header(StringRef Key, StringRef Rest, bool &Done) {
  uint64_t V;
  if (Key == "hmplace-misses") {
    if (LineNo != 0)
      return fail(Key, "the 'hmplace-misses' line must come first");
    if (!number(Rest, V))
      return false;
    if (V != 1)
      return fail(Rest, "version " + Rest +
                            " of the misses format is newer than this "
                            "hmplan reads (1)");
    return true;
  }
  if (LineNo == 0)
    return fail(Key, "not a misses file (no 'hmplace-misses' line)");
  if (Key == "profile") {
    Out.Profile = Rest.str();
    return !Rest.empty() || fail(Key, "no profile named");
  }
  if (Key == "pid")
    return number(Rest, Out.Pid);
  if (Key == "line") {
    if (!number(Rest, V))
      return false;
    return V == 64 || fail(Rest, "a cache line of " + Rest +
                                     " bytes (this reader knows 64)");
  }
  if (Key == "sample") {
    if (!Rest.consume_front("1/"))
      return fail(Rest, "expected 'sample 1/N'");
    return number(Rest, Out.Sample);
  }
  if (Key == "buckets")
    return buckets(Rest);
  if (Key == "accesses")
    return number(Rest, V);
  if (Key == "contexts") {
    auto [N, Dropped] = Rest.split(' ');
    return number(N, V) && number(Dropped, Out.Dropped);
  }
  if (Key == "layout") {
    if (Rest != "memprof" && Rest != "unknown")
      return fail(Rest, "expected 'memprof' or 'unknown'");
    Out.Attributed = Rest == "memprof";
    return true;
  }
  if (Key == "ctx")
    return context(Rest);
  if (Key == "end") {
    Done = true;
    return true;
  }
  return fail(Key, "unknown line '" + Key + "'");
}

bool MissParser::parse() {
  Out.Path = Path.str();
  bool Done = false;
  StringRef Rest = Text;
  for (; !Rest.empty() && !Done; ++LineNo) {
    std::tie(Line, Rest) = Rest.split('\n');
    if (Line.empty())
      return fail(Line, "an empty line");
    auto [Key, Value] = Line.split(' ');
    if (!header(Key, Value, Done))
      return false;
  }
  if (!Done) {
    D.report(D.locAt(Buf, LineNo, 0), Severity::Error,
             "the file ends before its 'end' line (the run did not finish "
             "writing it)");
    return false;
  }
  if (!Rest.empty()) {
    Line = Rest;
    return fail(Rest, "text after the 'end' line");
  }
  return true;
}

} // namespace

bool parseMissFile(StringRef Path, StringRef Data, MissProfile &Out,
                   DiagEngine &D) {
  return MissParser(Path, Data, Out, D).parse();
}

} // namespace hmplace
