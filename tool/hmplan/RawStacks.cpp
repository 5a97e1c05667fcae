//===- RawStacks.cpp - what LLVM's MemProf reader drops from a stack ------===//
//
// The mapping from a profiled address to the binary is the reader's
// (RawMemProfReader::getModuleOffset): an address inside the binary's
// executable segment, as the runtime recorded it, is moved by the segment's
// preferred address minus its start; the debug info then names it or not
// (the reader drops what it cannot name, and compiler-rt's own frames).
//
//===----------------------------------------------------------------------===//
#include "RawStacks.h"
#include "plan/LLVMCompat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/ProfileData/MemProf.h"

#include <algorithm>
#include <set>

using namespace llvm;

namespace hmplace {

RawStacks::RawStacks(const object::ObjectFile &Binary, DWARFContext &Ctx)
    : Ctx(Ctx) {
  if (auto *Elf = dyn_cast<object::ELF64LEObjectFile>(&Binary)) {
    auto Phdrs = Elf->getELFFile().program_headers();
    if (Phdrs) {
      for (const auto &P : *Phdrs)
        if (P.p_type == ELF::PT_LOAD && (P.p_flags & ELF::PF_X)) {
          TextAddress = P.p_vaddr;
          break;
        }
    } else {
      consumeError(Phdrs.takeError());
    }
  }
  for (const object::SymbolRef &S : Binary.symbols()) {
    Expected<object::SymbolRef::Type> T = S.getType();
    Expected<uint64_t> A = S.getAddress();
    Expected<StringRef> N = S.getName();
    if (!T || !A || !N || *T != object::SymbolRef::ST_Function || !*A) {
      consumeError(T.takeError());
      consumeError(A.takeError());
      consumeError(N.takeError());
      continue;
    }
    uint64_t Size = object::ELFSymbolRef(S).getSize();
    Symbols.push_back({*A, Size, N->str()});
  }
  llvm::sort(Symbols, [](const Symbol &X, const Symbol &Y) {
    return X.Address < Y.Address;
  });
}

const RawStacks::Symbol *RawStacks::symbolAt(uint64_t Address) const {
  auto It = std::upper_bound(
      Symbols.begin(), Symbols.end(), Address,
      [](uint64_t A, const Symbol &S) { return A < S.Address; });
  if (It == Symbols.begin())
    return nullptr;
  --It;
  return Address < It->Address + std::max<uint64_t>(It->Size, 1) ? &*It
                                                                 : nullptr;
}

bool RawStacks::keptFrame(uint64_t Address,
                          std::tuple<uint64_t, uint32_t, uint32_t> &Key) const {
  DILineInfoSpecifier Spec(DILineInfoSpecifier::FileLineInfoKind::RawValue,
                           DILineInfoSpecifier::FunctionNameKind::LinkageName);
  DIInliningInfo DI = Ctx.getInliningInfoForAddress(
      {Address, object::SectionedAddress::UndefSection}, Spec);
  if (!DI.getNumberOfFrames())
    return false;
  const DILineInfo &In = DI.getFrame(0);
  if (In.FunctionName == DILineInfo::BadString ||
      StringRef(In.FileName).contains("compiler-rt/lib/"))
    return false;
  Key = {functionGUID(In.FunctionName), In.Line - In.StartLine, In.Column};
  return true;
}

/// How the binary's symbols name an allocation function the program calls:
/// MemProf's interceptors and HmPlace's profile wrappers stand for it.
static StringRef allocatorName(StringRef Symbol) {
  for (StringRef Prefix : {"___interceptor_", "__interceptor_", "__wrap_"})
    if (Symbol.consume_front(Prefix))
      break;
  return Symbol;
}

static bool knownAllocator(StringRef Name) {
  static const StringRef Allocators[] = {
      "malloc",         "calloc",        "realloc",  "reallocarray",
      "posix_memalign", "aligned_alloc", "memalign", "valloc",
      "pvalloc",        "strdup",        "strndup"};
  return is_contained(Allocators, Name) || Name.starts_with("_Zn");
}

std::map<uint64_t, std::string> RawStacks::add(const RawProfileFacts &F,
                                               StringRef Id) {
  std::map<uint64_t, std::string> Keys;
  std::vector<std::pair<uint64_t, uint64_t>> Ours;
  for (const RawSegment &S : F.Segments)
    if (S.BuildId == Id)
      Ours.push_back({S.Start, S.End});
  if (Ours.empty())
    return Keys;
  std::set<uint64_t> Frameless;
  for (size_t I = 0; I < F.StackPCs.size(); ++I) {
    const std::vector<uint64_t> &PCs = F.StackPCs[I];
    bool Foreign = false, Kept = false;
    std::string Allocator;
    for (uint64_t PC : PCs) {
      auto Seg = llvm::find_if(
          Ours, [&](const auto &S) { return PC > S.first && PC <= S.second; });
      if (Seg == Ours.end()) {
        Foreign = true;
        continue;
      }
      uint64_t Address = PC + TextAddress - Seg->first;
      std::tuple<uint64_t, uint32_t, uint32_t> Key;
      if (!keptFrame(Address, Key)) {
        // The allocator and the wrappers around it: the outermost one
        // that is an allocation function is what the program called.
        if (const Symbol *S = symbolAt(Address))
          if (knownAllocator(allocatorName(S->Name)))
            Allocator = allocatorName(S->Name).str();
        continue;
      }
      RawSiteFacts &R = Facts[Key];
      R.Foreign |= Foreign;
      if (R.Allocator.empty())
        R.Allocator = Allocator;
      Kept = true;
      break;
    }
    if (!Kept)
      Frameless.insert(F.StackIds[I]);
  }
  // Every stack as the reader gives it; those it misreads: their blocks are
  // answered by misread().
  std::set<uint64_t> MisreadIds;
  for (size_t I = 0; I < F.StackPCs.size(); ++I) {
    bool M;
    Keys[F.StackIds[I]] = readerKey(F.StackPCs[I], Ours, M);
    if (M)
      MisreadIds.insert(F.StackIds[I]);
  }
  for (const RawProfileFacts::Block &B : F.Blocks)
    if (MisreadIds.count(B.StackId)) {
      Misread[Keys[B.StackId]].push_back({B.Objects, B.Bytes, B.Accesses});
      MisreadTotal.Objects += B.Objects;
      MisreadTotal.Bytes += B.Bytes;
      MisreadTotal.Accesses += B.Accesses;
      Frameless.erase(B.StackId); // counted there, not here
    }
  for (const RawProfileFacts::Block &B : F.Blocks)
    if (Frameless.count(B.StackId)) {
      Unnamed.Objects += B.Objects;
      Unnamed.Bytes += B.Bytes;
      Unnamed.Accesses += B.Accesses;
    }
  return Keys;
}

/// One frame of stackKey's text.
static void addKey(std::string &K, uint64_t Function, uint32_t LineOffset,
                   uint32_t Column, bool Inline) {
  K += utohexstr(Function) + ":" + utostr(LineOffset) + ":" + utostr(Column) +
       (Inline ? "i" : "") + ">";
}

std::string stackKey(ArrayRef<memprof::Frame> Frames) {
  std::string K;
  for (const memprof::Frame &F : Frames)
    addKey(K, F.Function, F.LineOffset, F.Column, F.IsInlineFrame);
  return K;
}

std::string RawStacks::readerKey(ArrayRef<uint64_t> PCs,
                                 ArrayRef<std::pair<uint64_t, uint64_t>> Ours,
                                 bool &Misread) const {
  DILineInfoSpecifier Spec(DILineInfoSpecifier::FileLineInfoKind::RawValue,
                           DILineInfoSpecifier::FunctionNameKind::LinkageName);
  std::string K;
  Misread = false;
  for (uint64_t PC : PCs) {
    auto Seg = llvm::find_if(
        Ours, [&](const auto &S) { return PC > S.first && PC <= S.second; });
    // As the reader (RawMemProfReader::getModuleOffset and
    // symbolizeAndFilterStackFrames): an address of another segment is
    // symbolized unmapped, and a stale value on the stack may land in the
    // binary's code; every inlined frame of an address it keeps.
    uint64_t Address = Seg == Ours.end() ? PC : PC + TextAddress - Seg->first;
    DIInliningInfo DI = Ctx.getInliningInfoForAddress(
        {Address, object::SectionedAddress::UndefSection}, Spec);
    size_t N = DI.getNumberOfFrames();
    if (!N || DI.getFrame(0).FunctionName == DILineInfo::BadString ||
        StringRef(DI.getFrame(0).FileName).contains("compiler-rt/lib/"))
      continue;
    if (K.empty())
      Misread = Seg == Ours.end();
    for (size_t J = 0; J < N; ++J) {
      const DILineInfo &L = DI.getFrame(J);
      addKey(K, functionGUID(L.FunctionName), L.Line - L.StartLine, L.Column,
             J + 1 != N);
    }
  }
  return K;
}

unsigned RawStacks::misread(const std::string &Key, uint64_t Objects,
                            uint64_t Bytes) const {
  auto It = Misread.find(Key);
  if (It == Misread.end())
    return 0;
  return unsigned(llvm::count_if(It->second, [&](const RawUnnamed &U) {
    return U.Objects == Objects && U.Bytes == Bytes;
  }));
}

const RawSiteFacts *RawStacks::at(uint64_t Function, uint32_t LineOffset,
                                  uint32_t Column) const {
  auto It = Facts.find({Function, LineOffset, Column});
  return It == Facts.end() ? nullptr : &It->second;
}

uint64_t assumedAlignment(StringRef Allocator) {
  if (Allocator == "valloc" || Allocator == "pvalloc")
    return 4096;
  if (Allocator == "posix_memalign" || Allocator == "aligned_alloc" ||
      Allocator == "memalign" || Allocator.contains("St11align_val_t"))
    return 64;
  return 0;
}

} // namespace hmplace
