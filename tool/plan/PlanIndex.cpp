//===- PlanIndex.cpp - large plans read per compile through a cached index ===//
//
// A profile-driven advisor writes plans of 100k entries; every compile that
// loads HmPlace.so would parse all of them (measured: 0.75 s and 170 MB per
// compiler process) to use the few that name its files. So a large plan is
// parsed once per content, by whichever compile comes first, into an index:
// its entries serialised one per line, and per file base name the offsets of
// the lines of the entries that name it. A compile reads the index, looks up
// its files' base names and parses those lines only. The index is written to
// a temporary file and renamed into place, so parallel compiles (make -j)
// either find a whole index or build their own; its first line holds the
// plan's content hash and size, so an edited plan is never answered from a
// stale index. Plan locations are kept as byte offsets into the plan, which
// is mapped (not parsed) so that diagnostics still point into it.
//
//===----------------------------------------------------------------------===//
#include "plan/Plan.h"
#include "plan/Split.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <map>

using namespace llvm;

namespace hmplace {

/// Plans smaller than this are parsed whole: a few thousand entries cost
/// less than a millisecond or two, and leave no index files around.
static constexpr size_t IndexThreshold = 512 * 1024;
static constexpr StringLiteral Magic = "hmidx 3";

static std::string escape(StringRef S) {
  std::string O;
  for (char C : S) {
    if (C == '\\')
      O += "\\\\";
    else if (C == '\t')
      O += "\\t";
    else if (C == '\n')
      O += "\\n";
    else if (C == '\x1f')
      O += "\\u";
    else if (C == '\x1e')
      O += "\\v";
    else
      O += C;
  }
  return O;
}

static std::string unescape(StringRef S) {
  std::string O;
  for (size_t I = 0; I < S.size(); ++I) {
    if (S[I] != '\\' || I + 1 == S.size()) {
      O += S[I];
      continue;
    }
    char C = S[++I];
    O += C == 't'   ? '\t'
         : C == 'n' ? '\n'
         : C == 'u' ? '\x1f'
         : C == 'v' ? '\x1e'
                    : C;
  }
  return O;
}

static std::string baseKey(StringRef File, bool IgnoreCase) {
  StringRef B = sys::path::filename(File);
  return IgnoreCase ? B.lower() : B.str();
}

static long offsetOf(SMLoc L, const char *Start, size_t Size) {
  const char *P = L.getPointer();
  return P && P >= Start && P <= Start + Size ? long(P - Start) : -1;
}

/// A size window's bound in an index line: the bytes, or "-".
static std::string optionalSize(std::optional<uint64_t> B) {
  return B ? std::to_string(*B) : "-";
}

static bool readOptionalSize(StringRef S, std::optional<uint64_t> &B) {
  uint64_t V;
  if (S == "-")
    return true;
  if (S.getAsInteger(10, V))
    return false;
  B = V;
  return true;
}

/// The index of \p P, whose text starts at \p Start (\p Size bytes).
static std::string writeIndex(const Plan &P, const char *Start, size_t Size) {
  std::string Out;
  raw_string_ostream OS(Out);
  OS << Magic << " " << utohexstr(P.ContentHash) << " " << Size << "\n";
  OS << "plan " << P.Version << " " << int(P.Format) << " "
     << (P.IgnoreCase ? 1 : 0) << "\t" << escape(P.Note) << "\n";
  for (const auto &[Name, T] : P.Tiers)
    OS << "T\t" << escape(Name) << "\t" << escape(T->KindSpelling) << "\t"
       << (T->Capacity ? std::to_string(*T->Capacity) : "-") << "\t"
       << offsetOf(T->Loc, Start, Size) << "\t" << escape(T->Note) << "\n";
  // Entries first into their own text, to know their offsets.
  std::string Entries;
  std::map<std::string, std::vector<size_t>> ByBase;
  for (const PlanEntry &E : P.Entries) {
    size_t At = Entries.size();
    std::string Line = "E\t" + std::to_string(E.Index) + "\t" +
                       std::to_string(offsetOf(E.Loc, Start, Size)) + "\t" +
                       std::to_string(offsetOf(E.KeyLoc, Start, Size)) + "\t" +
                       std::to_string(offsetOf(E.KindLoc, Start, Size)) + "\t" +
                       (E.IsStack ? "1" : "0") + "\t";
    for (size_t I = 0; I < E.Frames.size(); ++I)
      Line += (I ? "\x1f" : "") + escape(E.Frames[I].str()) +
              (E.Frames[I].Token.empty() ? "" : "\x1e" + E.Frames[I].Token);
    Line += "\t" + escape(E.To.Spelling) + "\t" + escape(E.Size) + "\t" +
            escape(E.Note) + "\t" + escape(E.Object) + "\t" +
            optionalSize(E.MinSize) + "\t" + optionalSize(E.MaxSize) + "\n";
    Entries += Line;
    std::set<std::string> Bases;
    for (const Frame &F : E.Frames)
      if (F.namesFile())
        Bases.insert(baseKey(F.File, P.IgnoreCase));
    // A function without debug info may be in any file: every compile
    // loads such an entry (key "").
    if (E.innermostIs(Frame::Form::NoDebug))
      Bases.insert("");
    for (const std::string &B : Bases)
      ByBase[B].push_back(At);
  }
  OS << "files " << ByBase.size() << "\n";
  for (const auto &[B, Offs] : ByBase) {
    OS << "F\t" << escape(B) << "\t";
    ListSeparator LS(" ");
    for (size_t O : Offs)
      OS << LS << O;
    OS << "\n";
  }
  OS << "entries " << P.Entries.size() << "\n" << Entries;
  return Out;
}

static SMLoc locAt(StringRef Off, const char *Start, size_t Size) {
  long N;
  if (Off.getAsInteger(10, N) || N < 0 || size_t(N) > Size)
    return SMLoc();
  return SMLoc::getFromPointer(Start + N);
}

/// The head of \p Index (the plan's settings and tiers) into \p P, whose
/// text starts at \p Start; the offsets of each base name's entries into
/// \p ByBase and the entries section into \p Body. False if the index is
/// not one this code wrote for this plan.
static bool readHead(StringRef Index, Plan &P, const char *Start, size_t Size,
                     std::map<std::string, std::vector<size_t>> &ByBase,
                     StringRef &Body, size_t &Total) {
  auto [Head, Rest] = Index.split('\n');
  SmallVector<StringRef, 4> HF;
  Head.split(HF, ' ');
  if (HF.size() != 4 || (HF[0] + " " + HF[1]).str() != Magic ||
      HF[2] != utohexstr(P.ContentHash) || HF[3] != std::to_string(Size))
    return false;
  auto [PlanLine, AfterPlan] = Rest.split('\n');
  Rest = AfterPlan;
  {
    auto [Nums, Note] = PlanLine.split('\t');
    SmallVector<StringRef, 4> F;
    Nums.split(F, ' ');
    unsigned Fmt, IC;
    if (F.size() != 4 || F[0] != "plan" || F[1].getAsInteger(10, P.Version) ||
        F[2].getAsInteger(10, Fmt) || F[3].getAsInteger(10, IC))
      return false;
    P.Format = PlanFormat(Fmt);
    P.IgnoreCase = IC;
    P.Note = unescape(Note);
  }
  while (Rest.starts_with("T\t")) {
    auto [Line, Tail] = Rest.split('\n');
    Rest = Tail;
    SmallVector<StringRef, 6> F;
    Line.split(F, '\t');
    if (F.size() != 6)
      return false;
    auto T = std::make_unique<Tier>();
    T->Name = unescape(F[1]);
    T->KindSpelling = unescape(F[2]);
    T->Kind = findKind(T->KindSpelling) ? findKind(T->KindSpelling)
                                        : findAlias(T->KindSpelling);
    uint64_t Cap;
    if (F[3] != "-" && !F[3].getAsInteger(10, Cap))
      T->Capacity = Cap;
    T->Loc = locAt(F[4], Start, Size);
    T->Note = unescape(F[5]);
    if (!T->Kind)
      return false;
    std::string Name = T->Name;
    P.Tiers[Name] = std::move(T);
  }
  auto [FilesLine, AfterFiles] = Rest.split('\n');
  Rest = AfterFiles;
  if (!FilesLine.starts_with("files "))
    return false;
  while (Rest.starts_with("F\t")) {
    auto [Line, Tail] = Rest.split('\n');
    Rest = Tail;
    auto [Base, Offs] = Line.drop_front(2).split('\t');
    SmallVector<StringRef, 16> O;
    Offs.split(O, ' ', -1, false);
    std::vector<size_t> &V = ByBase[unescape(Base)];
    for (StringRef X : O) {
      size_t N;
      if (X.getAsInteger(10, N))
        return false;
      V.push_back(N);
    }
  }
  auto [EntriesLine, AfterEntries] = Rest.split('\n');
  if (!EntriesLine.starts_with("entries ") ||
      EntriesLine.drop_front(8).getAsInteger(10, Total))
    return false;
  Body = AfterEntries;
  return true;
}

/// The entry at \p Off of the entries section \p Body, added to \p P.
static bool readEntry(StringRef Body, size_t Off, Plan &P, const char *Start,
                      size_t Size) {
  if (Off >= Body.size())
    return false;
  StringRef Line = Body.substr(Off).split('\n').first;
  SmallVector<StringRef, 10> F;
  Line.split(F, '\t');
  if (F.size() != 13 || F[0] != "E")
    return false;
  PlanEntry E;
  if (F[1].getAsInteger(10, E.Index))
    return false;
  E.Loc = locAt(F[2], Start, Size);
  E.KeyLoc = locAt(F[3], Start, Size);
  E.KindLoc = locAt(F[4], Start, Size);
  E.IsStack = F[5] == "1";
  SmallVector<StringRef, 4> Frames;
  F[6].split(Frames, '\x1f');
  for (StringRef FT : Frames) {
    std::string Err;
    auto [Text, Token] = FT.split('\x1e');
    std::optional<Frame> Fr = parseFrame(unescape(Text), Err);
    if (!Fr)
      return false;
    Fr->Token = Token.str();
    E.Frames.push_back(std::move(*Fr));
  }
  E.To.Spelling = unescape(F[7]);
  if (StringRef(E.To.Spelling).starts_with("{")) {
    if (!parseSplitSpelling(P, E.To.Spelling, E.To).empty())
      return false;
  } else {
    E.To.Kind = P.resolveKind(E.To.Spelling, &E.To.TheTier);
  }
  if (!E.To.Kind || E.Frames.empty())
    return false;
  E.Size = unescape(F[8]);
  E.Note = unescape(F[9]);
  E.Object = unescape(F[10]);
  if (!readOptionalSize(F[11], E.MinSize) ||
      !readOptionalSize(F[12], E.MaxSize))
    return false;
  P.HasObjects |= !E.Object.empty();
  P.HasWindows |= E.hasWindow();
  P.Entries.push_back(std::move(E));
  return true;
}

static void sortEntries(Plan &P) {
  llvm::sort(P.Entries, [](const PlanEntry &A, const PlanEntry &B) {
    return A.Index < B.Index;
  });
}

/// Where the index of the plan at \p Path may be: beside it, then in the
/// user's cache directory (a plan in a directory the build cannot write).
static std::vector<std::string> indexPaths(StringRef Path, uint64_t Hash) {
  std::vector<std::string> Out = {(Path + ".hmidx").str()};
  SmallString<256> Cache;
  if (std::optional<std::string> X = sys::Process::GetEnv("XDG_CACHE_HOME"))
    Cache = *X;
  else if (std::optional<std::string> H = sys::Process::GetEnv("HOME"))
    sys::path::append(Cache, *H, ".cache");
  if (!Cache.empty()) {
    sys::path::append(Cache, "hmplace", utohexstr(Hash) + ".hmidx");
    Out.push_back(std::string(Cache));
  }
  return Out;
}

static bool writeAtomically(StringRef Target, StringRef Text) {
  SmallString<256> Dir(sys::path::parent_path(Target));
  if (!Dir.empty() && sys::fs::create_directories(Dir))
    return false;
  SmallString<256> Tmp;
  int FD;
  if (sys::fs::createUniqueFile(Target + ".tmp-%%%%%%", FD, Tmp))
    return false;
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Text;
    OS.close();
    if (OS.has_error()) {
      OS.clear_error();
      sys::fs::remove(Tmp);
      return false;
    }
  }
  if (sys::fs::rename(Tmp, Target)) {
    sys::fs::remove(Tmp);
    return false;
  }
  return true;
}

struct PlanSource::Index {
  std::unique_ptr<MemoryBuffer> Text;
  std::map<std::string, std::vector<size_t>> ByBase;
  StringRef Body;
  size_t Total = 0;
  const char *Start = nullptr;
  size_t Size = 0;
  std::set<size_t> Loaded;
};

PlanSource::~PlanSource() = default;

std::unique_ptr<PlanSource> PlanSource::open(StringRef Path, DiagEngine &D) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf) {
    D.report(Path, Severity::Error,
             "cannot read plan: " + Buf.getError().message());
    return nullptr;
  }
  std::unique_ptr<PlanSource> S(new PlanSource());
  S->Large = (*Buf)->getBufferSize() >= IndexThreshold;
  if (!S->Large) {
    if (!(S->P = parsePlan(std::move(*Buf), D)))
      return nullptr;
    return S;
  }
  StringRef Text = (*Buf)->getBuffer();
  const char *Start = Text.data();
  size_t Size = Text.size();
  Plan Source;
  Source.setSource(Path, Text);
  std::vector<std::string> Where = indexPaths(Path, Source.ContentHash);
  for (const std::string &IP : Where) {
    auto Idx = MemoryBuffer::getFile(IP, /*IsText=*/false,
                                     /*RequiresNullTerminator=*/false);
    if (!Idx)
      continue;
    auto P = std::make_unique<Plan>();
    P->Path = Source.Path;
    P->PlanDir = Source.PlanDir;
    P->ContentHash = Source.ContentHash;
    auto I = std::make_unique<Index>();
    if (!readHead((*Idx)->getBuffer(), *P, Start, Size, I->ByBase, I->Body,
                  I->Total))
      continue;
    I->Text = std::move(*Idx);
    I->Start = Start;
    I->Size = Size;
    D.addBuffer(std::move(*Buf)); // locations point into it
    S->P = std::move(P);
    S->Idx = std::move(I);
    return S;
  }
  // No index for this content yet: parse it whole, and write one.
  if (!(S->P = parsePlan(std::move(*Buf), D)))
    return nullptr;
  // A `files:` entry may name any file: such a plan is used whole (it is
  // written by hand, and rarely large).
  if (S->P->HasFileSets) {
    S->Large = false;
    return S;
  }
  std::string Index = writeIndex(*S->P, Start, Size);
  for (const std::string &IP : Where)
    if (writeAtomically(IP, Index))
      break;
  return S;
}

bool PlanSource::load(StringRef Basename) {
  if (!Idx)
    return false;
  size_t Before = P->Entries.size();
  for (const std::string &K : {Basename.str(), Basename.lower(),
                               std::string() /* NoDebug entries */}) {
    auto It = Idx->ByBase.find(K);
    if (It == Idx->ByBase.end())
      continue;
    for (size_t Off : It->second)
      if (Idx->Loaded.insert(Off).second &&
          !readEntry(Idx->Body, Off, *P, Idx->Start, Idx->Size))
        Idx->Loaded.erase(Off); // a damaged line: as if absent
  }
  if (P->Entries.size() == Before)
    return false;
  sortEntries(*P);
  return true;
}

void PlanSource::loadAll() {
  if (!Idx)
    return;
  std::vector<std::string> Names;
  for (const auto &[B, Offs] : Idx->ByBase)
    Names.push_back(B);
  for (const std::string &B : Names)
    load(B);
}

unsigned PlanSource::unloaded() const {
  return Idx && Idx->Total > P->Entries.size()
             ? unsigned(Idx->Total - P->Entries.size())
             : 0;
}

std::unique_ptr<Plan> loadPlanFor(StringRef Path,
                                  const std::set<std::string> &Basenames,
                                  DiagEngine &D) {
  std::unique_ptr<PlanSource> S = PlanSource::open(Path, D);
  if (!S)
    return nullptr;
  for (const std::string &B : Basenames)
    S->load(B);
  bool Large = S->large();
  std::unique_ptr<Plan> P = S->take();
  if (!Large)
    return P; // small plans are used whole, as they always were
  // A large plan parsed whole (its index just built) keeps only what these
  // files can use, as a plan read through its index does.
  bool IC = P->IgnoreCase;
  llvm::erase_if(P->Entries, [&](const PlanEntry &E) {
    if (E.isFileSet() || E.innermostIs(Frame::Form::NoDebug))
      return false;
    return llvm::none_of(E.Frames, [&](const Frame &F) {
      if (!F.namesFile())
        return false;
      StringRef Name = sys::path::filename(F.File);
      return llvm::any_of(Basenames, [&](const std::string &B) {
        return IC ? Name.equals_insensitive(B) : Name == B;
      });
    });
  });
  return P;
}

uint64_t keysHashFor(const Plan &P, StringRef Basename) {
  std::set<std::string> Keys;
  for (const PlanEntry &E : P.Entries) {
    if (E.isFileSet())
      continue;
    for (size_t I = 0; I < E.Frames.size(); ++I) {
      const Frame &F = E.Frames[I];
      StringRef Name = sys::path::filename(F.File);
      if (F.namesFile() &&
          (P.IgnoreCase ? Name.equals_insensitive(Basename) : Name == Basename))
        Keys.insert((I ? "caller " : "call ") + F.str().substr(F.File.size()) +
                    " " + F.Function);
    }
  }
  std::string All = join(Keys, "\n");
  return xxh3_64bits(arrayRefFromStringRef(All));
}

} // namespace hmplace
