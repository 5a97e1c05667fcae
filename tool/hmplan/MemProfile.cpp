//===- MemProfile.cpp - allocation contexts from an LLVM MemProf profile --===//
//
// A MemProf frame names a function by the MD5 of its linkage name (and, from
// a raw profile read with names kept, by the name itself), a line offset
// from the line the function is declared on, and a column. The binary's
// DWARF has, per function, the file and line it is declared at: file and
// declaration line plus offset give the call's own position, as the
// symbolizer computed the offset from the same DW_AT_decl_line. A function
// declared in two files under one name (two static functions) cannot be
// told apart: frames through it are dropped, and the contexts that need
// them say so.
//
// The raw reader lists every context once per function on its stack (so
// that the compiler can match it where those functions are inlined): a
// profile's contexts are made unique by their frames before the profiles
// are summed.
//
//===----------------------------------------------------------------------===//
#include "MemProfile.h"
#include "RawProfile.h"
#include "plan/AllocFns.h"
#include "plan/SiteKey.h"

#include "llvm/ADT/StringExtras.h"
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

using namespace llvm;

namespace hmplace {

uint64_t ProfileContext::peakBytes() const {
  uint64_t PerObject = MaxSize;
  if (AllocCount && TotalSize / AllocCount > PerObject)
    PerObject = TotalSize / AllocCount; // MaxSize is 32 bits in MemProf
  uint64_t AtOnce =
      std::min<uint64_t>(std::max<uint64_t>(AllocCount, 1), Overlaps + 1);
  return std::min(TotalSize ? TotalSize : PerObject, PerObject * AtOnce);
}

std::string ProfileFrame::text() const {
  return File + ":" + utostr(Line) + ":" + utostr(Column);
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
}

namespace {

/// How notes and tables name a function: qualified, without its parameter
/// list (`std::vector<double>::vector`, `Field<double>::Field`), which is
/// what a reviewer recognises.
std::string functionName(StringRef Linkage, StringRef Short) {
  std::string Mangled = Linkage.str(); // the demangler keeps pointers in it
  ItaniumPartialDemangler PD;
  if (PD.partialDemangle(Mangled.c_str()) || !PD.isFunction())
    return Short.str();
  size_t Size = 0;
  char *Name = PD.getFunctionName(nullptr, &Size);
  std::string Out = Name ? Name : Short.str();
  std::free(Name);
  return Out;
}

/// Where each function of the binary is declared, by linkage name and by
/// the MD5 MemProf keys functions with.
class FunctionIndex {
public:
  struct Decl {
    std::string File; ///< absolute
    unsigned Line = 0;
    std::string Name; ///< demangled
    bool Ambiguous = false;
  };

  /// False (and nothing indexed) if the binary has no DWARF to read.
  bool build(object::ObjectFile &Obj) {
    std::unique_ptr<DWARFContext> Ctx = DWARFContext::create(Obj);
    for (const std::unique_ptr<DWARFUnit> &CU : Ctx->compile_units()) {
      HasLines |= CU->getLineTableOffset() != 0 || CU->getNumDIEs() > 1;
      StringRef CompDir = CU->getCompilationDir();
      for (const DWARFDebugInfoEntry &E : CU->dies()) {
        DWARFDie Die(CU.get(), &E);
        if (Die.getTag() == dwarf::DW_TAG_call_site ||
            Die.getTag() == dwarf::DW_TAG_GNU_call_site) {
          addCallSite(*Ctx, Die);
          continue;
        }
        // Declarations (of a function called from this unit) carry the
        // prototype's line, not the definition's the offsets count from.
        if (Die.getTag() != dwarf::DW_TAG_subprogram ||
            Die.find(dwarf::DW_AT_declaration))
          continue;
        const char *Link = Die.getLinkageName();
        const char *Short = Die.getShortName();
        const char *Key = Link && *Link ? Link : Short;
        unsigned Line = Die.getDeclLine();
        if (!Key || !*Key || !Line)
          continue;
        std::string File = Die.getDeclFile(
            DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath);
        if (File.empty())
          continue;
        add(Key, File, CompDir, Line, Short ? Short : Key);
      }
    }
    return HasLines && !ByName.empty();
  }

  const Decl *byName(StringRef Name) const {
    auto It = ByName.find(Name.str());
    return It == ByName.end() ? nullptr : &It->second;
  }
  const Decl *byGUID(uint64_t G) const {
    auto It = ByGUID.find(G);
    return It == ByGUID.end() ? nullptr : It->second;
  }
  const std::map<uint64_t, const Decl *> &guids() const { return ByGUID; }

  /// The function called at \p File:Line:Col if the debug info's call
  /// sites there call one that is no allocator, and none that is.
  const std::string *calleeAt(StringRef File, unsigned Line,
                              unsigned Col) const {
    auto It = Calls.find(File.str() + ":" + utostr(Line) + ":" + utostr(Col));
    if (It == Calls.end() || It->second.Allocator)
      return nullptr;
    return &It->second.Other;
  }

private:
  /// Optimised builds describe each call (DW_TAG_call_site): its callee
  /// and return address, whose line entry is the call's position, the
  /// innermost frame MemProf gives for an allocation made there.
  void addCallSite(DWARFContext &Ctx, const DWARFDie &Site) {
    DWARFDie Callee =
        Site.getAttributeValueAsReferencedDie(dwarf::DW_AT_call_origin);
    std::optional<uint64_t> Ret =
        dwarf::toAddress(Site.find(dwarf::DW_AT_call_return_pc));
    if (!Ret)
      Ret = dwarf::toAddress(Site.find(dwarf::DW_AT_low_pc)); // GNU form
    const char *Name = Callee ? Callee.getShortName() : nullptr;
    if (!Ret || !Name || !*Name || Site.find(dwarf::DW_AT_call_tail_call))
      return;
    DILineInfoSpecifier Spec(
        DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath,
        DILineInfoSpecifier::FunctionNameKind::None);
    DILineInfo L = Ctx.getLineInfoForAddress(
        {*Ret - 1, object::SectionedAddress::UndefSection}, Spec);
    if (!L.Line || L.FileName == DILineInfo::BadString)
      return;
    CallsAt &C = Calls[normalizePath(L.FileName, "/") + ":" + utostr(L.Line) +
                       ":" + utostr(L.Column)];
    StringRef N(Name);
    if (findAllocFn(N) || N.starts_with("operator new") ||
        N.starts_with("_Zn")) {
      C.Allocator = true;
    } else if (C.Other.empty()) {
      C.Other = N.str();
    }
  }
  struct CallsAt {
    bool Allocator = false;
    std::string Other;
  };
  std::map<std::string, CallsAt> Calls;

  void add(StringRef Key, const std::string &File, StringRef CompDir,
           unsigned Line, StringRef Short) {
    auto [It, New] = ByName.try_emplace(Key.str());
    Decl &D = It->second;
    if (New) {
      D.File = normalizePath(File, CompDir);
      D.Line = Line;
      D.Name = functionName(Key, Short);
      ByGUID[memprof::IndexedMemProfRecord::getGUID(Key)] = &D;
      return;
    }
    // The same function seen from several units (an inline function of a
    // header) is the same declaration; two functions of one name are not.
    if (D.File != normalizePath(File, CompDir) || D.Line != Line)
      D.Ambiguous = true;
  }

  std::map<std::string, Decl> ByName;
  std::map<uint64_t, const Decl *> ByGUID;
  bool HasLines = false;
};

/// The per-profile view, before profiles are summed.
struct Collected {
  std::map<std::string, ProfileContext> ByKey;  ///< frames joined
  std::map<std::string, ProfileContext> Record; ///< the record being read
  unsigned Unresolved = 0; ///< contexts with a frame the index lacks
  /// The most physical frames (not inlined into the next) of a stack.
  unsigned Deepest = 0;
  bool OutsideMain = false; ///< a stack whose outermost frame is not main
};

/// Add one allocation site of a profile.
void collect(const memprof::AllocationInfo &AI, const FunctionIndex &Index,
             Collected &C) {
  ProfileContext Ctx;
  bool Missing = false;
  for (const memprof::Frame &F : AI.CallStack) {
    const FunctionIndex::Decl *Decl = F.hasSymbolName()
                                          ? Index.byName(F.getSymbolName())
                                          : Index.byGUID(F.Function);
    if (!Decl && F.hasSymbolName())
      Decl = Index.byGUID(F.Function);
    if (!Decl || Decl->Ambiguous) {
      Missing = true;
      if (Ctx.Frames.empty())
        Ctx.Unnameable = "allocated by code the binary's debug info does not "
                         "name (a shared library)";
      continue; // a frame no plan can name: skipped (the chain stays valid:
                // only frames some entry names are ever noted)
    }
    ProfileFrame PF;
    PF.File = Decl->File;
    PF.Line = Decl->Line + F.LineOffset;
    PF.Column = F.Column;
    PF.Function = Decl->Name;
    Ctx.Frames.push_back(std::move(PF));
  }
  if (Missing)
    ++C.Unresolved;
  if (Ctx.Frames.empty())
    return;
  // Without frame pointers the unwinder stops after the caller of malloc:
  // one physical frame, with the frames inlined into it.
  unsigned Physical = count_if(
      AI.CallStack, [](const memprof::Frame &F) { return !F.IsInlineFrame; });
  C.Deepest = std::max(C.Deepest, Physical);
  C.OutsideMain |= Ctx.Frames.back().Function != "main";
  if (Ctx.Unnameable.empty()) {
    const ProfileFrame &In = Ctx.Frames.front();
    if (const std::string *Callee = Index.calleeAt(In.File, In.Line, In.Column))
      Ctx.Unnameable = "its innermost frame calls " + *Callee +
                       ", which no front end places (if it allocates by a "
                       "tail call, that leaves no frame: profile a build "
                       "with -fno-optimize-sibling-calls)";
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
  // An indexed profile merged from several runs lists a context once per
  // run in the same record: those add up.
  auto [It, New] = C.Record.try_emplace(std::move(Key), Ctx);
  if (!New)
    It->second.add(Ctx);
}

/// The end of one function's record: every function on a stack lists its
/// contexts, so a context already seen in another record is not counted
/// again.
void endRecord(Collected &C) {
  for (auto &[Key, Ctx] : C.Record)
    C.ByKey.try_emplace(Key, std::move(Ctx));
  C.Record.clear();
}

/// Why an LLVM reader failed, in words.
std::string message(Error E) { return toString(std::move(E)); }

/// Read the profile \p Path of \p Binary into \p C; the error, or "".
std::string readProfile(const std::string &Path, StringRef Binary,
                        StringRef BinaryId, const FunctionIndex &Index,
                        Collected &C) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getFile(Path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!Buf)
    return "cannot read the profile: " + Buf.getError().message();
  StringRef Data = (*Buf)->getBuffer();
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
             "nothing on the heap while it was profiled";
  } else if (!IndexedInstrProfReader::hasFormat(**Buf)) {
    return "not a MemProf profile: neither raw (as the program writes it) "
           "nor indexed (as llvm-profdata merge writes it)";
  }
  // LLVM's readers trust the file past its header (an indexed profile cut
  // short crashes them): a crash there is a corrupt profile, not ours.
  std::string Why;
  CrashRecoveryContext::Enable();
  CrashRecoveryContext CRC;
  bool Survived = CRC.RunSafely([&] {
    if (Raw) {
      auto Reader = memprof::RawMemProfReader::create(Path, Binary,
                                                      /*KeepName=*/true);
      if (!Reader) {
        Why = "cannot read the profile: " + message(Reader.takeError());
        return;
      }
      for (const auto &[GUID, Record] : **Reader) {
        for (const memprof::AllocationInfo &AI : Record.AllocSites)
          collect(AI, Index, C);
        endRecord(C);
      }
      return;
    }
    auto Reader =
        IndexedInstrProfReader::create(Path, *vfs::getRealFileSystem());
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
      for (const memprof::AllocationInfo &AI : R->AllocSites)
        collect(AI, Index, C);
      endRecord(C);
    }
  });
  if (!Survived)
    return "cannot read the profile: it is corrupt (LLVM's reader failed "
           "on it)";
  return Why;
}

} // namespace

bool readMemProfiles(const std::vector<std::string> &Profiles, StringRef Binary,
                     std::vector<ProfileContext> &Out, DiagEngine &D) {
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
  FunctionIndex Index;
  if (!Index.build(*Obj->getBinary())) {
    D.report(Binary, Severity::Error,
             "the binary has no debug info: build it with -g (and "
             "-fmemory-profile -fno-omit-frame-pointer) and profile again");
    return false;
  }
  // Raw profiles name the binaries of the process by build id: the check
  // LLVM 19's reader does not make.
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
    std::string Why = readProfile(Path, Binary, BinaryId, Index, C);
    if (!Why.empty()) {
      D.report(Path, Severity::Error, Why);
      OK = false;
      continue;
    }
    if (C.ByKey.empty()) {
      D.report(Path, Severity::Error,
               "the profile holds no allocation of " + Binary.str() +
                   " that its debug info names (an empty or truncated "
                   "profile?)");
      OK = false;
      continue;
    }
    if (C.Deepest <= 1 && C.OutsideMain) {
      D.report(Path, Severity::Error,
               "every call stack in the profile stops at the function that "
               "called the allocator, though some are not in main: the "
               "program was built without frame pointers; rebuild it with "
               "-fno-omit-frame-pointer and profile again");
      OK = false;
      continue;
    }
    if (C.Unresolved)
      D.report(Path, Severity::Note,
               Twine(C.Unresolved) + " call stack" +
                   (C.Unresolved == 1 ? " has" : "s have") +
                   " a frame the binary's debug info does not name, or names "
                   "twice (two static functions of one name): those frames "
                   "are left out of the entries");
    for (auto &[Key, Ctx] : C.ByKey) {
      auto [It, New] = All.try_emplace(Key, Ctx);
      if (!New)
        It->second.add(Ctx);
    }
  }
  if (!OK)
    return false;
  for (auto &[Key, Ctx] : All)
    Out.push_back(std::move(Ctx));
  return true;
}

} // namespace hmplace
