//===- FunctionIndex.cpp - the profiled binary's functions, from DWARF ----===//
#include "FunctionIndex.h"
#include "plan/AllocFns.h"
#include "plan/LLVMCompat.h"
#include "plan/SiteKey.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/ProfileData/MemProf.h"

using namespace llvm;

namespace hmplace {

/// Whether the function of \p Die keeps a frame pointer, by its frame base:
/// the frame-pointer register (x86-64 rbp, AArch64 x29) or another one (the
/// stack pointer); -1 where it has none (an abstract or declared instance).
static int framePointerOf(const DWARFDie &Die) {
  std::optional<DWARFFormValue> V = Die.find(dwarf::DW_AT_frame_base);
  if (!V)
    return -1;
  std::optional<ArrayRef<uint8_t>> Expr = V->getAsBlock();
  if (!Expr || Expr->size() != 1)
    return -1;
  uint8_t Op = (*Expr)[0];
  if (Op < dwarf::DW_OP_reg0 || Op > dwarf::DW_OP_reg31)
    return -1;
  unsigned Reg = Op - dwarf::DW_OP_reg0;
  Triple::ArchType Arch = Die.getDwarfUnit()->getContext().getArch();
  unsigned FP = Arch == Triple::aarch64 ? 29 : 6;
  return Reg == FP ? 1 : 0;
}

bool FunctionIndex::build(DWARFContext &Ctx) {
  for (const std::unique_ptr<DWARFUnit> &CU : Ctx.compile_units()) {
    HasLines |= CU->getLineTableOffset() != 0 || CU->getNumDIEs() > 1;
    StringRef CompDir = CU->getCompilationDir();
    for (const DWARFDebugInfoEntry &E : CU->dies()) {
      DWARFDie Die(CU.get(), &E);
      if (Die.getTag() == dwarf::DW_TAG_call_site ||
          Die.getTag() == dwarf::DW_TAG_GNU_call_site) {
        addCallSite(Ctx, Die);
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
      add(Key, File, CompDir, Line, Short ? Short : Key, framePointerOf(Die));
    }
  }
  return HasLines && !ByName.empty();
}

const FunctionIndex::Decl *FunctionIndex::byName(StringRef Name) const {
  auto It = ByName.find(Name.str());
  return It == ByName.end() ? nullptr : &It->second;
}

const FunctionIndex::Decl *FunctionIndex::byGUID(uint64_t G) const {
  auto It = ByGUID.find(G);
  return It == ByGUID.end() ? nullptr : It->second;
}

const FunctionIndex::Callee *
FunctionIndex::calleeAt(StringRef File, unsigned Line, unsigned Col) const {
  auto It = Calls.find(File.str() + ":" + utostr(Line) + ":" + utostr(Col));
  if (It == Calls.end() || It->second.Allocator)
    return nullptr;
  return &It->second.Other;
}

void FunctionIndex::addSymbols(const object::ObjectFile &Obj) {
  for (const object::SymbolRef &S : Obj.symbols()) {
    Expected<object::SymbolRef::Type> T = S.getType();
    Expected<uint32_t> Flags = S.getFlags();
    Expected<StringRef> N = S.getName();
    if (!T || !Flags || !N) {
      consumeError(T.takeError());
      consumeError(Flags.takeError());
      consumeError(N.takeError());
      continue;
    }
    if (*T == object::SymbolRef::ST_Function &&
        !(*Flags & object::SymbolRef::SF_Undefined))
      Defined.insert(N->str());
  }
}

bool FunctionIndex::withoutDebugInfo(StringRef Symbol) const {
  return Defined.count(Symbol.str()) && !Described.count(Symbol.str()) &&
         !ByName.count(Symbol.str());
}

/// Optimised builds describe each call (DW_TAG_call_site): its callee and
/// return address, whose line entry is the call's position, the innermost
/// frame MemProf gives for an allocation made there.
void FunctionIndex::addCallSite(DWARFContext &Ctx, const DWARFDie &Site) {
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
  DILineInfo L =
      lineInfoAt(Ctx, {*Ret - 1, object::SectionedAddress::UndefSection}, Spec);
  if (!L.Line || L.FileName == DILineInfo::BadString)
    return;
  CallsAt &C = Calls[normalizePath(L.FileName, "/") + ":" + utostr(L.Line) +
                     ":" + utostr(L.Column)];
  StringRef N(Name);
  if (findAllocFn(N) || N.starts_with("operator new") || N.starts_with("_Zn")) {
    C.Allocator = true;
  } else if (C.Other.Name.empty()) {
    const char *Link = Callee.getLinkageName();
    C.Other = {N.str(), Link && *Link ? Link : N.str()};
  }
}

void FunctionIndex::add(StringRef Key, const std::string &File,
                        StringRef CompDir, unsigned Line, StringRef Short,
                        int FramePointer) {
  Described.insert(Short.str());
  auto [It, New] = ByName.try_emplace(Key.str());
  Decl &D = It->second;
  if (New) {
    D.File = normalizePath(File, CompDir);
    D.Line = Line;
    D.Name = functionName(Key, Short);
    D.FramePointer = FramePointer;
    ByGUID[functionGUID(Key)] = &D;
    return;
  }
  // The same function seen from several units (an inline function of a
  // header) is the same declaration; two functions of one name are not.
  if (D.File != normalizePath(File, CompDir) || D.Line != Line)
    D.Ambiguous = true;
  // Its concrete instance says whether it keeps a frame pointer.
  if (FramePointer >= 0 && D.FramePointer != 0)
    D.FramePointer = FramePointer;
}

} // namespace hmplace
