//===- MemProfile.cpp - allocation contexts from an LLVM MemProf profile --===//
//
// LLVM's readers give each context as memprof::Frames (FunctionIndex.h says
// how those become source positions); the raw stacks add what the reader
// drops (RawStacks.h). The raw reader lists every context once per function
// on its stack (so that the compiler can match it where those functions are
// inlined): a profile's contexts are made unique by their frames before the
// profiles are summed.
//
//===----------------------------------------------------------------------===//
#include "MemProfile.h"
#include "FunctionIndex.h"
#include "IndexedLayout.h"
#include "IndexedProfile.h"
#include "RawProfile.h"
#include "RawStacks.h"
#include "plan/AllocFns.h"
#include "plan/BoundedRead.h"
#include "plan/SiteKey.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Object/BuildID.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/ProfileData/InstrProfReader.h"
#include "llvm/ProfileData/MemProfReader.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <map>
#include <set>
#include <tuple>

using namespace llvm;

namespace hmplace {

uint64_t ProfileContext::objectBytes() const {
  if (AllocCount && TotalSize / AllocCount > MaxSize)
    return TotalSize / AllocCount; // MaxSize is 32 bits in MemProf
  return MaxSize;
}

uint64_t ProfileContext::objectsAtOnce() const {
  return std::min<uint64_t>(std::max<uint64_t>(AllocCount, 1), Overlaps + 1);
}

uint64_t ProfileContext::peakBytes() const {
  uint64_t PerObject = objectBytes();
  return std::min(TotalSize ? TotalSize : PerObject,
                  PerObject * objectsAtOnce());
}

std::string ProfileFrame::text(StringRef Name) const {
  // Line 0: a call the optimizer merged, named by its function; no file: a
  // call in a function without debug info, named by the function alone
  // (SiteKey.h).
  if (Line == 0)
    return functionFrameText(File.empty() ? "" : Name, Function);
  // Column 0 on a line: the debug info gives no column (-gno-column-info),
  // and the frame matches any call of its line.
  if (Column == 0)
    return (Name + ":" + utostr(Line)).str();
  return (Name + ":" + utostr(Line) + ":" + utostr(Column)).str();
}

std::string ProfileContext::framesKey() const {
  std::string K;
  for (const ProfileFrame &F : Frames)
    K += F.text() + ">";
  return K;
}

void ProfileContext::add(const ProfileContext &C) {
  AllocCount += C.AllocCount;
  TotalSize += C.TotalSize;
  MaxSize = std::max(MaxSize, C.MaxSize);
  Accesses += C.Accesses;
  Overlaps = std::max(Overlaps, C.Overlaps); // per process
  Start = std::min(Start, C.Start);
  End = std::max(End, C.End);
  Profiles += C.Profiles;
  Align = std::max(Align, C.Align);
  if (CutAfter.empty())
    CutAfter = C.CutAfter;
  Misses.add(C.Misses);
}

void ProfileContext::addApart(const ProfileContext &C) {
  uint64_t Together = Overlaps + C.Overlaps + 1;
  add(C);
  Overlaps = Together;
}

namespace {

/// The per-profile view, before profiles are summed.
struct Collected {
  std::map<std::string, ProfileContext> ByKey;  ///< frames joined
  std::map<std::string, ProfileContext> Record; ///< the record being read
  /// The record's allocations left out as misread (RawStacks::misread), by
  /// stack key, objects and bytes.
  std::map<std::tuple<std::string, uint64_t, uint64_t>, unsigned> MisreadTaken;
  unsigned Unresolved = 0;    ///< contexts with a frame the index lacks
  /// The functions of those frames: the ones the binary's debug info does
  /// not name (a name, or the frame's GUID where the reader has none), and
  /// the ones it names twice.
  std::set<std::string> Unnamed, NamedTwice;
  unsigned MergedCallers = 0; ///< contexts with a caller frame at line 0
  /// Contexts, and those whose allocating function (the innermost physical
  /// one) keeps no frame pointer, of which outside `main`.
  unsigned Contexts = 0, InnermostNoFP = 0, NoFPOutsideMain = 0;
  std::set<std::string> NoFP; ///< functions that cut stacks
  /// The run's misses by the reader's frames of their call stacks
  /// (RawStacks::add), and the keys some context took.
  std::map<std::string, MissCurve> MissByKey;
  std::set<std::string> MissTaken;
};

/// Where the reader's frame \p F is in the program, or null where no entry
/// can name it (a function the index lacks or has twice: its name goes to
/// \p C's Unnamed or NamedTwice).
const FunctionIndex::Decl *declOf(const memprof::Frame &F,
                                  const FunctionIndex &Index, Collected &C) {
  const FunctionIndex::Decl *Decl = F.hasSymbolName()
                                        ? Index.byName(F.getSymbolName())
                                        : Index.byGUID(F.Function);
  if (!Decl && F.hasSymbolName())
    Decl = Index.byGUID(F.Function);
  if (Decl && !Decl->Ambiguous)
    return Decl;
  if (Decl)
    C.NamedTwice.insert(Decl->Name);
  else
    C.Unnamed.insert(F.hasSymbolName()
                         ? demangle(F.getSymbolName().str())
                         : "function " + utohexstr(F.Function, true) +
                               " (a GUID)");
  return nullptr;
}

/// Why no entry can name a context allocated in \p F, a frame declOf
/// refused.
std::string unnamedWhy(const memprof::Frame &F, const FunctionIndex &Index) {
  const FunctionIndex::Decl *Decl = F.hasSymbolName()
                                        ? Index.byName(F.getSymbolName())
                                        : Index.byGUID(F.Function);
  if (Decl && Decl->Ambiguous)
    return "allocated in " + Decl->Name +
           ", a name the binary's debug info gives two functions (two static "
           "functions of one name): which one cannot be told";
  return "allocated by code the binary's debug info does not name (a shared "
         "library)";
}

/// "a, b, c and 4 more": at most \p Most of \p Names.
std::string someOf(const std::set<std::string> &Names, size_t Most = 4) {
  std::string S;
  size_t I = 0;
  for (const std::string &N : Names) {
    if (I == Most)
      return S + " and " + std::to_string(Names.size() - Most) + " more";
    S += (I ? ", " : "") + N;
    ++I;
  }
  return S;
}

/// \p AI's frames into \p Ctx, innermost first, cut after the first
/// function that keeps no frame pointer (the unwinder skipped its caller or
/// lost the rest). Frames no entry can name are left out (only frames some
/// entry names are ever noted, so the chain stays valid).
void addFrames(const memprof::AllocationInfo &AI, const FunctionIndex &Index,
               ProfileContext &Ctx, Collected &C) {
  bool Missing = false, Merged = false, Physical = false;
  bool Columns = any_of(AI.CallStack,
                        [](const memprof::Frame &F) { return F.Column != 0; });
  for (size_t I = 0; I < AI.CallStack.size(); ++I) {
    const memprof::Frame &F = AI.CallStack[I];
    const FunctionIndex::Decl *Decl = declOf(F, Index, C);
    if (!Decl) {
      Missing = true;
      if (Ctx.Frames.empty())
        Ctx.Unnameable = unnamedWhy(F, Index);
      continue;
    }
    // A call the optimizer merged with another (two identical calls in an
    // if/else at -O2) has line 0 (the offset is the function's line
    // negated) or, from LLVM 22, also a line without a column (the line of
    // the function it was inlined into), where the other frames have
    // columns. As the allocation call it is named by its function
    // (`file:0 (function)`, which HmPlace.so places where the optimizer
    // merged it); as a caller it is left out, as a frame the index lacks
    // is (a caller is noted by its own line).
    int64_t Line = int64_t(Decl->Line) + int32_t(F.LineOffset);
    if (F.Column == 0 && Columns)
      Line = 0;
    if (Line <= 0 && !Ctx.Frames.empty()) {
      Merged = true;
    } else {
      ProfileFrame PF;
      PF.File = Decl->File;
      PF.Line = Line <= 0 ? 0 : unsigned(Line);
      PF.Column = Line <= 0 ? 0 : F.Column;
      PF.Function = Decl->Name;
      Ctx.Frames.push_back(std::move(PF));
    }
    if (F.IsInlineFrame || Decl->FramePointer != 0) {
      Physical |= !F.IsInlineFrame;
      continue;
    }
    if (!Physical) {
      ++C.InnermostNoFP;
      C.NoFPOutsideMain += Decl->Name != "main";
    }
    Physical = true;
    if (I + 1 < AI.CallStack.size()) {
      Ctx.CutAfter =
          Decl->Name + " (" + sys::path::filename(Decl->File).str() + ")";
      C.NoFP.insert(Ctx.CutAfter);
      break;
    }
  }
  if (Missing)
    ++C.Unresolved;
  if (Merged)
    ++C.MergedCallers;
}

/// Add one allocation site of a profile.
void collect(const memprof::AllocationInfo &AI, const FunctionIndex &Index,
             const RawStacks *Raw, Collected &C) {
  // A library's allocation whose stack the reader misread as the
  // program's lines (RawStacks::misread): no context of the program.
  // Every function on a stack lists it, so per record (endRecord).
  if (Raw) {
    std::string K = stackKey(AI.CallStack);
    uint64_t N = AI.Info.getAllocCount(), B = AI.Info.getTotalSize();
    if (unsigned Misread = Raw->misread(K, N, B))
      if (C.MisreadTaken[std::make_tuple(K, N, B)]++ < Misread)
        return;
  }
  ProfileContext Ctx;
  addFrames(AI, Index, Ctx, C);
  if (Ctx.Frames.empty())
    return;
  ++C.Contexts;
  // A merged call stands for several calls of the source, and so would its
  // entry: in a build where the others run, their objects too.
  if (const ProfileFrame &In = Ctx.Frames.front();
      In.Line == 0 && !In.File.empty() && Ctx.Unnameable.empty())
    Ctx.Unnameable = "it is allocated at a call the optimizer merged from "
                     "several of " +
                     In.Function +
                     " (line 0): which of them its objects came from cannot "
                     "be told, and an entry would place them all (hmcc "
                     "--profile keeps the calls apart)";
  const memprof::Frame &In0 = AI.CallStack.front();
  if (const RawSiteFacts *R =
          Raw ? Raw->at(In0.Function, In0.LineOffset, In0.Column) : nullptr) {
    Ctx.Align = assumedAlignment(R->Allocator);
    Ctx.Foreign = R->Foreign;
    if (R->Foreign && Ctx.Unnameable.empty())
      Ctx.Unnameable = "allocated inside a shared library that the call here "
                       "enters (libomp's own memory at an OpenMP pragma, for "
                       "one), which no front end places";
  }
  if (Ctx.Unnameable.empty()) {
    const ProfileFrame &In = Ctx.Frames.front();
    if (const FunctionIndex::Callee *Callee =
            Index.calleeAt(In.File, In.Line, In.Column)) {
      if (Index.withoutDebugInfo(Callee->Symbol)) {
        // MemProf drops the frames it cannot symbolize: the object was
        // allocated inside the function the innermost frame calls, which
        // the binary has without debug info. Its entry names the function
        // (`(function)`, SiteKey.h), which HmPlace.so finds by name.
        ProfileFrame PF;
        PF.Function = functionName(Callee->Symbol, Callee->Name);
        Ctx.Frames.insert(Ctx.Frames.begin(), std::move(PF));
      } else {
        Ctx.Unnameable = "its innermost frame calls " + Callee->Name +
                         ", which no front end places (if it allocates by a "
                         "tail call, that leaves no frame: profile a build "
                         "with -fno-optimize-sibling-calls)";
      }
    }
  }
  std::string Key = (Ctx.Unnameable.empty() ? "" : "?>") + Ctx.framesKey();
  const memprof::PortableMemInfoBlock &I = AI.Info;
  Ctx.AllocCount = I.getAllocCount();
  Ctx.TotalSize = I.getTotalSize();
  Ctx.MaxSize = I.getMaxSize();
  Ctx.Accesses = I.getTotalAccessCount();
  Ctx.Overlaps = I.getNumLifetimeOverlaps();
  // One object: its own interval. Several: the last one's end is known,
  // the first one's start is not: from the start of the run.
  Ctx.End = I.getDeallocTimestamp();
  Ctx.Start = Ctx.AllocCount == 1 ? I.getAllocTimestamp() : 0;
  Ctx.Profiles = 1;
  // A raw profile (one run) lists a context once per distinct call stack of
  // return addresses: twice under one key, it is two allocation calls at
  // one source location, whose objects may be live together (MemProf's
  // overlap count, in milliseconds, misses objects made and freed within
  // one). An indexed profile merged from several runs lists a context once
  // per run in the same record: those add up, one run's at a time.
  auto [It, New] = C.Record.try_emplace(std::move(Key), Ctx);
  if (New && !C.MissByKey.empty()) {
    // Once: every stack of the same frames (two calls at one place) is in
    // the curve already.
    std::string K = stackKey(AI.CallStack);
    auto M = C.MissByKey.find(K);
    if (M != C.MissByKey.end()) {
      It->second.Misses = M->second;
      C.MissTaken.insert(K);
    }
  }
  if (!New && Raw)
    It->second.addApart(Ctx);
  else if (!New)
    It->second.add(Ctx);
}

/// The end of one function's record: every function on a stack lists its
/// contexts, so a context already seen in another record is not counted
/// again.
void endRecord(Collected &C) {
  for (auto &[Key, Ctx] : C.Record)
    C.ByKey.try_emplace(Key, std::move(Ctx));
  C.Record.clear();
  C.MisreadTaken.clear();
}

/// Whether \p I holds every field the advisor reads. llvm-profdata of LLVM
/// 20 and later writes an indexed profile with its hot/cold fields only
/// (no access counts, sizes or timestamps) unless given
/// --memprof-full-schema.
bool hasAdvisorFields(const memprof::PortableMemInfoBlock &I) {
  using memprof::Meta;
  for (Meta M : {Meta::AllocCount, Meta::TotalSize, Meta::MaxSize,
                 Meta::TotalAccessCount, Meta::NumLifetimeOverlaps,
                 Meta::AllocTimestamp, Meta::DeallocTimestamp})
    if (!I.getSchema()[to_underlying(M)])
      return false;
  return true;
}

/// One function's record of an indexed profile into \p C; false with
/// \p Why where it lacks fields the advisor reads.
bool collectRecord(ArrayRef<memprof::AllocationInfo> Sites,
                   const FunctionIndex &Index, Collected &C, std::string &Why) {
  for (const memprof::AllocationInfo &AI : Sites) {
    if (!hasAdvisorFields(AI.Info)) {
      Why = "the indexed profile holds only llvm-profdata's hot/cold "
            "fields (no access counts or sizes); merge the raw profiles "
            "again with `llvm-profdata merge --memprof-full-schema`, or "
            "give hmplan the raw profiles";
      return false;
    }
    collect(AI, Index, nullptr, C);
  }
  endRecord(C);
  return true;
}

/// An indexed profile whose memory profile is of version 0 or 1, which
/// this LLVM's reader does not read (IndexedProfile.h): the records of the
/// binary's functions, as the reader would give them.
void readOldProfile(StringRef Data, const FunctionIndex &Index, Collected &C,
                    std::string &Why) {
  std::string Bad;
  bool Read = readOldMemProf(
      Data,
      [&](uint64_t GUID, ArrayRef<memprof::AllocationInfo> Sites) {
        if (Why.empty() && Index.byGUID(GUID))
          collectRecord(Sites, Index, C, Why);
      },
      Bad);
  if (!Read && Why.empty())
    Why = "cannot read the indexed profile: " + Bad;
}

/// The run's misses \p Miss by the reader's frames of their stacks (\p
/// Keys, by stack id), into \p C; those of no block and of stacks the
/// profile does not hold, into \p Misses.
void keyMisses(const MissProfile &Miss,
               const std::map<uint64_t, std::string> &Keys,
               ProfileMisses &Misses, Collected &C) {
  for (const auto &[Id, Curve] : Miss.ByContext) {
    auto K = Keys.find(Id);
    if (!Id)
      Misses.NoBlock.add(Curve);
    else if (K == Keys.end())
      Misses.NoContext.add(Curve);
    else
      C.MissByKey[K->second].add(Curve);
  }
}

/// Why an LLVM reader failed, in words.
std::string message(Error E) { return toString(std::move(E)); }

/// Read the profile \p Path of \p Binary into \p C; the error, or "".
std::string readProfile(const std::string &Path, StringRef Binary,
                        StringRef BinaryId, const FunctionIndex &Index,
                        RawStacks &Stacks, const MissProfile *Miss,
                        ProfileMisses &Misses, Collected &C) {
  std::string Err;
  std::unique_ptr<MemoryBuffer> Buf =
      readBounded(Path, InputKind::Profile, Err, /*NullTerminated=*/false);
  if (!Buf)
    return "cannot read the profile: " + Err;
  StringRef Data = Buf->getBuffer();
  if (Data.empty())
    return "the profile is empty (did the program exit normally? MemProf "
           "writes its profile at exit)";
  bool Raw = looksLikeRawMemProfile(Data);
  if (Raw) {
    RawProfileFacts Facts;
    std::string Why;
    if (!scanRawMemProfile(Data, Facts, Why))
      return "cannot read the profile: " + Why;
    if (!BinaryId.empty() && !is_contained(Facts.BuildIds, BinaryId))
      return "it is a profile of another binary: " + Binary.str() +
             " has build id " + BinaryId.str() +
             ", which no segment of the profiled process has (rebuilt since "
             "the profile was taken?)";
    if (!Facts.Allocations)
      return "the profile holds no allocation: the program allocated "
             "nothing on the heap while it was profiled, or only blocks that "
             "MemProf left out";
    std::map<uint64_t, std::string> Keys = Stacks.add(Facts, BinaryId);
    if (Miss)
      keyMisses(*Miss, Keys, Misses, C);
  } else if (!IndexedInstrProfReader::hasFormat(*Buf)) {
    return "not a MemProf profile: neither raw (as the program writes it) "
           "nor indexed (as llvm-profdata merge writes it)";
  }
  std::string Patched, Why;
  const IndexedReader ThisLLVM = {
      LLVM_VERSION_MAJOR, IndexedInstrProf::ProfVersion::CurrentVersion,
      memprof::MinimumSupportedVersion, memprof::MaximumSupportedVersion};
  if (!Raw && !fitIndexedProfile(Data, ThisLLVM, Patched, Why))
    return Why;
  // Everything LLVM's reader reads on opening it, in the file.
  if (!Raw && !checkIndexedLayout(Data, Why))
    return Why;
  // LLVM's readers trust the file past its header (an indexed profile cut
  // short crashes them): a crash there is a corrupt profile, not ours.
  CrashRecoveryContext::Enable();
  CrashRecoveryContext CRC;
  bool Survived = CRC.RunSafely([&] {
    if (Raw) {
      std::string Widened = rawAsReadable(Data);
      auto Reader =
          Widened.empty()
              ? memprof::RawMemProfReader::create(Path, Binary,
                                                  /*KeepName=*/true)
              : memprof::RawMemProfReader::create(
                    MemoryBuffer::getMemBufferCopy(Widened, Path), Binary,
                    /*KeepName=*/true);
      if (!Reader) {
        Why = "cannot read the profile: " + message(Reader.takeError());
        return;
      }
      for (const auto &[GUID, Record] : **Reader) {
        for (const memprof::AllocationInfo &AI : Record.AllocSites)
          collect(AI, Index, &Stacks, C);
        endRecord(C);
      }
      return;
    }
    if (isOldMemProf(Data, ThisLLVM)) {
      readOldProfile(Data, Index, C, Why);
      return;
    }
    auto Reader =
        Patched.empty()
            ? IndexedInstrProfReader::create(Path, *vfs::getRealFileSystem())
            : IndexedInstrProfReader::create(
                  MemoryBuffer::getMemBufferCopy(Patched, Path));
    if (!Reader) {
      Why = "cannot read the indexed profile: " + message(Reader.takeError());
      return;
    }
    if (!(*Reader)->hasMemoryProfile()) {
      Why = "the indexed profile holds no memory profile (merged from "
            "-fprofile-generate runs, not -fmemory-profile ones?)";
      return;
    }
    // Indexed profiles are keyed by function: ask for every function of
    // the binary.
    for (const auto &[G, Decl] : Index.guids()) {
      Expected<memprof::MemProfRecord> R = (*Reader)->getMemProfRecord(G);
      if (!R) {
        consumeError(R.takeError()); // no allocations there
        continue;
      }
      if (!collectRecord(R->AllocSites, Index, C, Why))
        return;
    }
  });
  if (!Survived)
    return "cannot read the profile: it is corrupt (LLVM's reader failed "
           "on it)";
  return Why;
}

/// Whether \p Obj defines the symbol \p Name: hmplace_profile_support,
/// where it was linked with HmPlace's profile support
/// (runtime/profile/profile.c); __hmplace_misses_sampled, where its
/// accesses are sampled for misses (tool/pass/MissIR.cpp).
bool hasSymbol(const object::ObjectFile &Obj, StringRef Name) {
  for (const object::SymbolRef &S : Obj.symbols()) {
    Expected<StringRef> N = S.getName();
    Expected<uint32_t> Flags = S.getFlags();
    if (!N || !Flags) {
      consumeError(N.takeError());
      consumeError(Flags.takeError());
      continue;
    }
    // Defined: the support library refers to the marker weakly.
    if (*N == Name && !(*Flags & object::SymbolRef::SF_Undefined))
      return true;
  }
  return false;
}

/// \p Path made absolute, for comparing the places of files.
std::string absolute(StringRef Path) {
  SmallString<256> P(Path);
  sys::fs::make_absolute(P);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

/// Parse the misses file \p Path into \p Out (false: reported).
bool readMissFile(StringRef Path, MissProfile &Out, DiagEngine &D) {
  std::string Err;
  std::unique_ptr<MemoryBuffer> Buf =
      readBounded(Path, InputKind::Profile, Err, /*NullTerminated=*/false);
  if (!Buf) {
    D.report(Path, Severity::Error, "cannot read the misses file: " + Err);
    return false;
  }
  return parseMissFile(Path, Buf->getBuffer(), Out, D);
}

/// Whether the file \p Path starts like a misses file.
bool isMissFile(StringRef Path) {
  char Head[16] = {};
  Expected<sys::fs::file_t> F = sys::fs::openNativeFileForRead(Path);
  if (!F) {
    consumeError(F.takeError());
    return false;
  }
  Expected<size_t> N =
      sys::fs::readNativeFile(*F, MutableArrayRef<char>(Head, sizeof Head));
  sys::fs::closeFile(*F);
  if (!N) {
    consumeError(N.takeError());
    return false;
  }
  return looksLikeMissFile(StringRef(Head, *N));
}

/// The inputs that are misses files, parsed and keyed by the raw profile
/// each goes with (its own directory and the profile's name); the others
/// into \p Profiles. False on a misses file that does not parse.
bool splitMissFiles(const std::vector<std::string> &Inputs,
                    std::vector<std::string> &Profiles,
                    std::map<std::string, MissProfile> &Given, DiagEngine &D) {
  bool OK = true;
  for (const std::string &In : Inputs) {
    if (!isMissFile(In)) {
      Profiles.push_back(In);
      continue;
    }
    MissProfile M;
    if (!readMissFile(In, M, D)) {
      OK = false;
      continue;
    }
    SmallString<256> For(sys::path::parent_path(absolute(In)));
    sys::path::append(For, M.Profile);
    Given[std::string(For)] = std::move(M);
  }
  return OK;
}

/// The misses of the profile \p Path: given among the inputs, or beside it
/// as `Path.misses`; null where there are none (or they do not parse:
/// \p OK false then).
const MissProfile *missesFor(const std::string &Path,
                             std::map<std::string, MissProfile> &Given,
                             bool &OK, DiagEngine &D) {
  std::string Abs = absolute(Path);
  auto It = Given.find(Abs);
  if (It != Given.end())
    return &It->second;
  std::string Beside = Path + ".misses";
  if (!sys::fs::exists(Beside))
    return nullptr;
  MissProfile M;
  if (!readMissFile(Beside, M, D)) {
    OK = false;
    return nullptr;
  }
  return &(Given[Abs] = std::move(M));
}

const char *const NoSupportWhy =
    "LLVM's MemProf (19 and 22) leaves out blocks over 128 KiB that are still "
    "allocated at exit (arrays a program never frees); link the program "
    "through hmcc --profile (or hmc++, hmfort) and profile again";

/// What \p C's run measured of misses, into \p Misses: the stacks no
/// context took (the reader left them out), the run's sample, or that the
/// run has no misses file.
void noteMisses(StringRef Path, const MissProfile *Miss, const Collected &C,
                ProfileMisses &Misses) {
  if (!Miss) {
    Misses.Unmeasured.push_back(Path.str());
    return;
  }
  ++Misses.Measured;
  for (const auto &[Key, Curve] : C.MissByKey)
    if (!C.MissTaken.count(Key))
      Misses.NoContext.add(Curve);
  Misses.Sample = std::max(Misses.Sample, Miss->Sample);
  Misses.Dropped += Miss->Dropped;
  Misses.Unattributed |= !Miss->Attributed;
}

/// A profile's contexts added to \p All, after the checks that refuse it.
bool addProfile(StringRef Path, StringRef Binary, Collected &C,
                ProfileBlindSpots &Blind,
                std::map<std::string, ProfileContext> &All, DiagEngine &D) {
  if (C.ByKey.empty()) {
    D.report(Path, Severity::Error,
             "the profile holds no allocation of " + Binary.str() +
                 " that its debug info names (an empty or truncated "
                 "profile?)" +
                 (Blind.NoSupport ? std::string("; ") + NoSupportWhy : ""));
    return false;
  }
  if (C.InnermostNoFP == C.Contexts && C.NoFPOutsideMain) {
    D.report(Path, Severity::Error,
             "the functions that allocate were built without frame pointers "
             "(their debug info says so), so the profile's call stacks stop "
             "or skip frames there; rebuild with -fno-omit-frame-pointer "
             "(hmcc --profile adds it) and profile again");
    return false;
  }
  // Notes that count call stacks: "1 call stack has", "2 call stacks have".
  auto Note = [&](unsigned N, StringRef Verb, StringRef Verbs,
                  const Twine &Rest) {
    if (N)
      D.report(Path, Severity::Note,
               Twine(N) + " call stack" + (N == 1 ? " " + Verb : "s " + Verbs) +
                   " " + Rest);
  };
  std::string Whose;
  if (!C.Unnamed.empty())
    Whose += "; not named (code without debug info, a shared library's): " +
             someOf(C.Unnamed);
  if (!C.NamedTwice.empty())
    Whose += "; named twice (two static functions of one name): " +
             someOf(C.NamedTwice);
  Note(C.Unresolved, "has", "have",
       "a frame the binary's debug info does not name, or names twice: "
       "those frames are left out of the entries" +
           Whose);
  unsigned NoDebugCalls = 0, MergedCalls = 0;
  for (const auto &[Key, Ctx] : C.ByKey) {
    const ProfileFrame &In = Ctx.Frames.front();
    MergedCalls += In.Line == 0 && !In.File.empty();
    NoDebugCalls += In.File.empty();
  }
  Note(NoDebugCalls, "allocates", "allocate",
       "inside a function the binary has without debug info: their entries "
       "name it as (function), which HmPlace.so places where that function "
       "is compiled with the plan and hmrewrite cannot; -g on its file names "
       "each call");
  Note(MergedCalls, "allocates", "allocate",
       "at a call the optimizer merged with another (line 0): which of the "
       "calls their objects came from cannot be told, so no entry names "
       "them; hmcc --profile keeps the calls apart");
  Note(C.MergedCallers, "has", "have",
       "a caller frame without a line of its own (calls the optimizer "
       "merged): those frames are left out of the entries");
  for (const std::string &F : C.NoFP)
    if (!is_contained(Blind.NoFramePointer, F))
      Blind.NoFramePointer.push_back(F);
  for (auto &[Key, Ctx] : C.ByKey) {
    auto [It, New] = All.try_emplace(Key, Ctx);
    if (!New)
      It->second.add(Ctx);
  }
  return true;
}

/// A misses file given for a profile that is not among \p Profiles (the
/// run's raw profile left out, or another directory's): said, not used.
void warnUnusedMisses(const std::map<std::string, MissProfile> &Given,
                      const std::vector<std::string> &Profiles,
                      DiagEngine &D) {
  std::set<std::string> Read;
  for (const std::string &P : Profiles)
    Read.insert(absolute(P));
  for (const auto &[For, M] : Given)
    if (!Read.count(For))
      D.report(M.Path, Severity::Warning,
               "the misses of " + M.Profile +
                   ", which is not among the profiles read (a misses file "
                   "goes with the raw profile in its directory): left out");
}

} // namespace

bool readMemProfiles(const std::vector<std::string> &Inputs, StringRef Binary,
                     std::vector<ProfileContext> &Out, ProfileBlindSpots &Blind,
                     ProfileMisses &Misses, DiagEngine &D) {
  std::vector<std::string> Profiles;
  std::map<std::string, MissProfile> GivenMisses;
  if (!splitMissFiles(Inputs, Profiles, GivenMisses, D))
    return false;
  if (Profiles.empty()) {
    D.report(Severity::Error, "no profile among the inputs, only misses "
                              "files (give the raw profiles too)");
    return false;
  }
  if (!sys::fs::exists(Binary)) {
    D.report(Binary, Severity::Error, "cannot read the binary: no such file");
    return false;
  }
  Expected<object::OwningBinary<object::ObjectFile>> Obj =
      object::ObjectFile::createObjectFile(Binary);
  if (!Obj) {
    D.report(Binary, Severity::Error,
             "cannot read the binary: " + message(Obj.takeError()));
    return false;
  }
  std::unique_ptr<DWARFContext> Dwarf = DWARFContext::create(*Obj->getBinary());
  FunctionIndex Index;
  if (!Index.build(*Dwarf)) {
    D.report(Binary, Severity::Error,
             "the binary has no debug info: build it with -g (and "
             "-fmemory-profile -fno-omit-frame-pointer) and profile again");
    return false;
  }
  Index.addSymbols(*Obj->getBinary());
  Blind.NoSupport = !hasSymbol(*Obj->getBinary(), "hmplace_profile_support");
  Misses.Instrumented =
      hasSymbol(*Obj->getBinary(), "__hmplace_misses_sampled");
  RawStacks Stacks(*Obj->getBinary(), *Dwarf);
  // Raw profiles name the binaries of the process by build id: the check
  // LLVM's reader does not make.
  std::string BinaryId =
      toHex(object::getBuildID(Obj->getBinary()), /*LowerCase=*/true);
  std::map<std::string, ProfileContext> All;
  bool OK = true;
  for (const std::string &Path : Profiles) {
    if (!sys::fs::exists(Path)) {
      D.report(Path, Severity::Error, "cannot read the profile: no such file");
      OK = false;
      continue;
    }
    Collected C;
    const MissProfile *Miss = missesFor(Path, GivenMisses, OK, D);
    std::string Why =
        readProfile(Path, Binary, BinaryId, Index, Stacks, Miss, Misses, C);
    if (!Why.empty()) {
      if (Blind.NoSupport &&
          (StringRef(Why).contains("no entries in callstack") ||
           StringRef(Why).contains("holds no allocation")))
        Why += std::string("; ") + NoSupportWhy;
      D.report(Path, Severity::Error, Why);
      OK = false;
      continue;
    }
    OK &= addProfile(Path, Binary, C, Blind, All, D);
    noteMisses(Path, Miss, C, Misses);
  }
  warnUnusedMisses(GivenMisses, Profiles, D);
  if (!OK)
    return false;
  Blind.UnnamedObjects = Stacks.unnamed().Objects;
  Blind.UnnamedBytes = Stacks.unnamed().Bytes;
  Blind.UnnamedAccesses = Stacks.unnamed().Accesses;
  Blind.MisreadObjects = Stacks.misreadTotal().Objects;
  Blind.MisreadBytes = Stacks.misreadTotal().Bytes;
  Blind.MisreadAccesses = Stacks.misreadTotal().Accesses;
  for (auto &[Key, Ctx] : All) {
    if (Ctx.Foreign) {
      ++Blind.Foreign;
      Blind.ForeignAccesses += Ctx.Accesses;
    }
    Out.push_back(std::move(Ctx));
  }
  if (Blind.NoSupport)
    D.report(Binary, Severity::Warning,
             "not linked with HmPlace's profile support: " +
                 std::string(NoSupportWhy));
  if (!Blind.NoFramePointer.empty())
    D.report(Binary, Severity::Warning,
             "some call stacks stop at functions built without frame "
             "pointers (" +
                 join(Blind.NoFramePointer, ", ") +
                 "): their entries name no caller beyond them; rebuild "
                 "those files with -fno-omit-frame-pointer");
  return true;
}

} // namespace hmplace
