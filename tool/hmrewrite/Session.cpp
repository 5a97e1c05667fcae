//===- Session.cpp - decide every recorded call and plan the edits --------===//
//
// Two phases. While each translation unit is parsed, calls are recorded as
// plain data (Collect.cpp): the AST is gone once the TU ends, and placement
// rules look at all calls of all files at once (SiteMatcher). finish() then
// decides and emits Replacements.
//
//===----------------------------------------------------------------------===//
#include "Rewrite.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

using namespace clang;
using namespace llvm;

namespace hmplace {

RewriteSession::RewriteSession(PlanSource *Src, DiagEngine &D)
    : Src(Src), ThePlan(Src ? &Src->plan() : nullptr), D(D) {
  if (ThePlan)
    Matcher.emplace(*ThePlan);
}

void RewriteSession::seeFile(StringRef Name) {
  // The matcher holds pointers into the plan's entries: made again when
  // entries come (during parsing it only answers which lines hold callers).
  if (Src && Src->load(sys::path::filename(Name)))
    Matcher.emplace(*ThePlan);
}

/// Whether \p Path names a header by its extension.
static bool isHeaderPath(StringRef Path) {
  StringRef Ext = sys::path::extension(Path);
  return Ext == ".h" || Ext == ".hh" || Ext == ".hpp" || Ext == ".hxx" ||
         Ext == ".H" || Ext == ".h++" || Ext == ".inl" || Ext == ".inc" ||
         Ext == ".tcc" || Ext == ".ipp";
}

bool RewriteSession::headerSelected(StringRef Path) const {
  return !HeaderFilter.empty() && Regex(HeaderFilter).match(Path);
}

void RewriteSession::addTU(std::vector<CallRecord> TUCalls, MainFileInfo Info) {
  // A call in a header is seen once per TU that includes it, a call in a
  // main file once per compile command of the file. The TU where the
  // header's edits are allowed (it is the main file, or selected) has the
  // say, whatever the order of the files.
  // Calls are found again through a hash of what makes them the same call.
  auto Same = [](const CallRecord &A, const CallRecord &B) {
    return A.Key.Line == B.Key.Line && A.Key.Column == B.Key.Column &&
           A.CalleeOffset == B.CalleeOffset && A.Key.File == B.Key.File &&
           A.EditFile == B.EditFile;
  };
  Calls.reserve(Calls.size() + TUCalls.size());
  for (CallRecord &C : TUCalls) {
    // EditFile is interned: its address stands for its text.
    SmallVector<size_t, 1> &Bucket = SeenCalls[hash_combine(
        C.Key.Line, C.Key.Column, C.EditFile.data(), C.CalleeOffset)];
    auto Dup =
        llvm::find_if(Bucket, [&](size_t I) { return Same(Calls[I], C); });
    if (Dup != Bucket.end()) {
      CallRecord &Old = Calls[*Dup];
      if (Old.Edit == CallRecord::InOtherFile &&
          C.Edit != CallRecord::InOtherFile)
        Old = std::move(C);
      else if (Old.NotPlaceable.empty())
        Old.NotPlaceable = C.NotPlaceable;
      continue;
    }
    Bucket.push_back(Calls.size());
    if (!C.EditFile.empty() && C.EditFile != Info.Path &&
        headerSelected(C.EditFile) && C.Edit != CallRecord::InSystemHeader)
      Headers.insert(C.EditFile.str());
    Calls.push_back(std::move(C));
  }
  FilesRead.insert(Info.FilesRead.begin(), Info.FilesRead.end());
  Info.FilesRead.clear();
  SkippedCalls.insert(Info.SkippedCalls.begin(), Info.SkippedCalls.end());
  Info.SkippedCalls.clear();
  MainFiles[Info.Path] = std::move(Info);
}

unsigned RewriteSession::skippedCount() const {
  if (SkippedCalls.empty())
    return 0;
  // A call inactive in one TU may be active in another (the same file built
  // twice with different macros): only the calls no TU saw count.
  std::set<std::pair<std::string, unsigned>> Seen;
  for (const CallRecord &C : Calls)
    if (C.Fn && !C.EditFile.empty())
      Seen.insert({C.EditFile.str(), C.CalleeOffset});
  unsigned N = 0;
  for (const auto &P : SkippedCalls)
    N += !Seen.count(P);
  return N;
}

std::vector<const CallRecord *> RewriteSession::callerSites() const {
  std::vector<const CallRecord *> Out;
  for (const CallRecord &C : Calls)
    if (!C.Fn)
      Out.push_back(&C);
  return Out;
}

std::vector<const CallRecord *> RewriteSession::allocationSites() const {
  std::vector<const CallRecord *> Out;
  for (const CallRecord &C : Calls)
    if (C.Fn && C.Fn->allocates())
      Out.push_back(&C);
  llvm::sort(Out, [](const CallRecord *A, const CallRecord *B) {
    return std::tie(A->Key.File, A->Key.Line, A->Key.Column) <
           std::tie(B->Key.File, B->Key.Line, B->Key.Column);
  });
  return Out;
}

void RewriteSession::warnAt(const CallRecord &C, const Twine &Msg) {
  D.report(C.Key.str(), Severity::Warning, Msg);
}

void RewriteSession::addEdit(StringRef File, unsigned Offset, unsigned Length,
                             StringRef Text) {
  // The same edit twice (a macro argument expanded twice) is one edit.
  auto FileIt = Edits.find(File);
  if (FileIt == Edits.end())
    FileIt = Edits.try_emplace(File.str()).first;
  tooling::Replacements &Reps = FileIt->second;
  SmallVector<SeenEdit, 1> &Same =
      EditSet[hash_combine(File, Offset, Length, Text)];
  for (const SeenEdit &E : Same)
    if (E.Offset == Offset && E.Length == Length && E.Text == Text &&
        *E.File == File)
      return;
  Same.push_back({&FileIt->first, Offset, Length, Text.str()});
  tooling::Replacement R(File, Offset, Length, Text);
  if (Error E = Reps.add(R)) {
    D.report(File, Severity::Error,
             "internal: overlapping edits: " + toString(std::move(E)));
  }
}

/// `"..."` for a C string literal.
static std::string cString(StringRef S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '\n')
      Out += "\\n";
    else if (C == '\t')
      Out += "\\t";
    else if (C == '"' || C == '\\')
      Out += std::string("\\") + C;
    else
      Out += C;
  }
  return Out + "\"";
}

void RewriteSession::noteCaller(const CallRecord &C) {
  const char *Why = nullptr;
  if (!C.NoteProblem.empty())
    Why = C.NoteProblem.c_str();
  else if (C.Edit == CallRecord::InSystemHeader)
    Why = "it is in a system header";
  else if (C.Edit == CallRecord::InOtherFile || !isRewritten(C.EditFile))
    Why = "its file is not being rewritten (name it, or select its header "
          "with --header-filter)";
  if (Why) {
    warnAt(C, Twine("call at ") + C.Key.str() +
                  " is a caller frame of a call-stack entry but cannot be "
                  "noted: " +
                  Why + "; entries through it place nothing");
    return;
  }
  uint64_t Id = contextFrameId(C.Key.File, C.Key.Line, C.Key.Column);
  addEdit(C.EditFile, C.NoteBegin, 0,
          "__extension__({ __attribute__((cleanup(hmplace_ctx_cleanup))) "
          "uint32_t hm_ctx_ "
          "= hmplace_ctx_push(0x" +
              utohexstr(Id, /*LowerCase=*/true) + "); ");
  addEdit(C.EditFile, C.NoteEnd, 0, "; })");
  ++NumNoted;
  if (Remarks)
    D.report(C.Key.str(), Severity::Remark,
             "call at " + C.Key.str() + " notes itself for call-stack entries");
}

bool RewriteSession::finish() {
  unsigned ErrorsBefore = D.errors();
  std::vector<Placement> Decisions;
  std::vector<int> CallIndex(Calls.size(), -1);
  // -v names every entry not examined: all of a large plan is needed then.
  if (Src && Verbose && Src->unloaded()) {
    Src->loadAll();
    Matcher.emplace(*ThePlan);
  }
  if (Matcher) {
    for (size_t I = 0; I < Calls.size(); ++I)
      if (Calls[I].Fn && Calls[I].Fn->allocates() &&
          Matcher->mayMatchLine(Calls[I].Key.Line)) {
        CallContext Ctx;
        Ctx.Frames.push_back(Calls[I].Key);
        Ctx.CompileDir = Calls[I].CompileDir;
        CallIndex[I] = int(Matcher->addCall(std::move(Ctx)));
      }
    Decisions = Matcher->resolve();
  }

  for (size_t I = 0; I < Calls.size(); ++I) {
    const CallRecord &C = Calls[I];
    if (!C.Fn) {
      CallContext Ctx;
      Ctx.Frames.push_back(C.Key);
      Ctx.CompileDir = C.CompileDir;
      if (Matcher && Matcher->isNoted(Ctx) && !C.AlreadyNoted)
        noteCaller(C);
      continue;
    }
    const Placement *P = CallIndex[I] >= 0 ? &Decisions[CallIndex[I]] : nullptr;
    bool Contextual = P && P->State == Placement::Contextual;
    bool Wanted = P && (P->State == Placement::Placed || Contextual) &&
                  (Contextual || !P->Entry->To.isHeap());
    bool Placed = Wanted && !C.AlreadyPlaced;
    if (P && P->State == Placement::Conflict)
      warnAt(C, "not placed: " + P->Reason);
    if (Placed) {
      const KindInfo &K =
          Contextual ? *P->Choices.front().Entry->To.Kind : *P->Entry->To.Kind;
      const char *Why = nullptr;
      switch (C.Edit) {
      case CallRecord::Editable:
        break;
      case CallRecord::InMacroBody:
        Why = "it is inside the body of a macro, which every use of the "
              "macro shares";
        break;
      case CallRecord::InSystemHeader:
        Why = "it is in a system header";
        break;
      case CallRecord::InOtherFile:
        Why = "it is in a file that is not being rewritten (only the files "
              "named on the command line are, and headers selected with "
              "--header-filter)";
        break;
      }
      if (!Why && !isRewritten(C.EditFile))
        Why = "its file is not being rewritten";
      if (!C.NotPlaceable.empty())
        Why = C.NotPlaceable.c_str();
      if (Why) {
        warnAt(C, Twine("planned ") + C.Fn->Name + " (" +
                      (Contextual ? "by caller" : K.Name) +
                      ") not rewritten: " + Why +
                      (C.Macro.empty() ? "" : " ('" + C.Macro + "')") +
                      (C.NotPlaceable.empty()
                           ? "; place it with HmPlace.so or edit the code"
                           : ""));
        continue;
      }
      // The kind: a constant, or the runtime's answer for the current
      // caller chain.
      std::string KindText =
          Contextual ? "(enum hmplace_kind)hmplace_ctx_kind(" +
                           cString(encodeContextSite(C.Key, P->Choices,
                                                     P->fallbackKind())) +
                           ")"
                     : runtimeKindConstant(K);
      if (C.IsNew) {
        addEdit(C.EditFile, C.NewOffset, 0,
                C.NewInParens ? KindText + ", " : " (" + KindText + ")");
      } else {
        addEdit(C.EditFile, C.CalleeOffset, C.CalleeLength, C.Fn->Placed);
        addEdit(C.EditFile, C.ArgOffset, 0, KindText + ", ");
      }
      ++NumPlaced;
      if (Remarks)
        D.report(C.Key.str(), Severity::Remark,
                 Twine("placed ") + C.Fn->Name + " at " + C.Key.str() +
                     (Contextual
                          ? " by its callers (" + P->contextSummary() + ")"
                          : std::string(" in ") + K.Name + " (plan entry '" +
                                P->Entry->key() + "')"));
      continue;
    }
    if (Wanted && C.AlreadyPlaced) {
      // The plan may have moved the site to another kind since: the kind
      // argument follows it, so a rerun brings the sources to the plan.
      std::string Want =
          Contextual ? std::string() : runtimeKindConstant(*P->Entry->To.Kind);
      if (!Want.empty() && !C.KindArgText.empty() && C.KindArgText != Want &&
          StringRef(C.KindArgText).starts_with("HMPLACE_") &&
          isRewritten(C.EditFile)) {
        addEdit(C.EditFile, C.KindArgOffset, C.KindArgText.size(), Want);
        ++NumRekinded;
      } else {
        ++NumAlreadyPlaced;
      }
    } else if (C.AlreadyPlaced && !C.KindArgText.empty() && !Wanted &&
               Matcher && isRewritten(C.EditFile)) {
      warnAt(C, "placed in the source (" + C.KindArgText +
                    ") but no plan entry names this call; left as it is");
    }
    // Everything else that frees must dispatch: free, and realloc that is
    // not placed (it keeps the block wherever it lives).
    if (C.Fn->Dispatch && !C.AlreadyPlaced &&
        (C.Edit == CallRecord::Editable || C.Edit == CallRecord::InMacroBody) &&
        !C.EditFile.empty() && isRewritten(C.EditFile)) {
      addEdit(C.EditFile, C.CalleeOffset, C.CalleeLength, C.Fn->Dispatch);
      ++NumDispatch;
    }
  }
  if (Matcher) {
    Coverage Cov;
    Cov.Read.assign(FilesRead.begin(), FilesRead.end());
    Cov.Failed.assign(Failed.begin(), Failed.end());
    Cov.ListUnexamined = Verbose;
    Cov.NotLoaded = Src ? Src->unloaded() : 0;
    Matcher->reportUsage(D, &Cov);
    Matcher->reportUnnoted(D);
  }

  for (auto &[File, Reps] : Edits) {
    if (Reps.empty())
      continue;
    // A header named on the command line is a main file to clang, but its
    // include goes where it goes in a header selected by --header-filter, so
    // that both ways give the same text.
    auto It = MainFiles.find(File);
    if (It != MainFiles.end() && !isHeaderPath(File)) {
      if (!It->second.IncludesRuntime)
        insertInclude(File, It->second, Reps.begin()->getOffset(), 0);
      continue;
    }
    if (!Headers.count(File) && It == MainFiles.end())
      continue;
    // A header: its includes sit inside the include guard (depth 1).
    auto Buf = MemoryBuffer::getFile(File);
    if (!Buf)
      continue;
    MainFileInfo Info;
    Info.Path = File;
    SmallVector<StringRef, 64> Lines;
    (*Buf)->getBuffer().split(Lines, '\n');
    for (size_t L = 0; L < Lines.size(); ++L) {
      StringRef T = Lines[L].ltrim();
      if (!T.consume_front("#") || !T.ltrim().starts_with("include"))
        continue;
      Info.LastIncludeLine = L + 1;
      Info.IncludesRuntime |= T.contains("hmplace.h");
    }
    if (!Info.IncludesRuntime)
      insertInclude(File, Info, Reps.begin()->getOffset(), 1);
  }
  return D.errors() == ErrorsBefore;
}

} // namespace hmplace
