; A call the optimizer merged (two identical mallocs of an if/else, sunk
; into one at -O2) has line 0 in its function: it stands for several calls
; of the source, each with its own objects. The entry `c3.c:0 (make)` (a
; profile of a build that merged them) was made from the objects of
; whichever ran, so placing the merged call would place the others too:
; it places nothing, with a warning naming the calls (where the stage at
; the start of the pipeline saw them: here only one of make's is left in
; the source, so "several"), and the build record says it matched a call
; but placed nothing. The merged calls exist only at the end of the
; pipeline, where the stage that decides them runs (hm-place-merged,
; OptimizerLast); the stage at the start leaves them alone.
; RUN: rm -rf %t && mkdir -p %t && cd %t
; RUN: printf 'version: 1\nsites:\n  - {site: "c3.c:0 (make)", kind: hbm}\n' > plan.yaml
; RUN: env HMPLACE_PLAN=plan.yaml %opt -load-pass-plugin=%hmplace_plugin -passes=hm-place -S %s -o - | FileCheck %s --check-prefix=START
; START-NOT: hmplace_malloc
; RUN: env HMPLACE_PLAN=plan.yaml %opt -load-pass-plugin=%hmplace_plugin -passes=hm-place,hm-place-merged -S %s -o - 2> warnings | FileCheck %s
; RUN: FileCheck %s --check-prefix=WARN < warnings
; CHECK-LABEL: define ptr @main
; CHECK: %merged = call ptr @malloc(i64 %n)
; CHECK: %other = call ptr @malloc(i64 %n)
; CHECK: %source = call ptr @malloc(i64 %n)
; WARN: warning: HmPlace: plan entry 'c3.c:0 (make)' (plan.yaml:3:5) places nothing in c3.c: it names a call the optimizer merged from several calls of malloc (line 0 in make): which of them the entry was made from cannot be told, and placing the merged call would place the objects of each; it stays on the ordinary heap (profile with hmcc --profile, which keeps the calls apart, and advise again)
; RUN: %hmplan summary plan.yaml 2>&1 | FileCheck %s --check-prefix=SUMMARY
; SUMMARY: plan entry 'c3.c:0 (make)' matched a call but placed nothing: it names a call the optimizer merged
; SUMMARY: 0 of 1 entries matched, 1 matched a call but placed nothing
; A merged entry for a function whose calls this build did not merge: said
; by default, and recorded.
; RUN: printf 'version: 1\nsites:\n  - {site: "c3.c:0 (calc)", kind: hbm}\n' > gone.yaml
; RUN: env HMPLACE_PLAN=gone.yaml %opt -load-pass-plugin=%hmplace_plugin -passes=hm-place,hm-place-merged -S %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=GONE
; GONE: warning: HmPlace: plan entry 'c3.c:0 (calc)' (gone.yaml:3:5) places nothing in c3.c: the optimizer merged no allocation call of calc in this build (line 0 in its debug info)
; RUN: %hmplan summary gone.yaml 2>&1 | FileCheck %s --check-prefix=GONESUM
; GONESUM: warning: plan entry 'c3.c:0 (calc)' matched nothing in the whole build: in c3.c, the optimizer merged no allocation call of calc
; The same entry of the ordinary heap (`posix`, as hmplan advise writes for
; a context it keeps in DDR) places nothing either way: the compile says
; nothing, the summary notes it with the compile's reason.
; RUN: printf 'version: 1\nsites:\n  - {site: "c3.c:0 (calc)", kind: posix}\n' > heap.yaml
; RUN: env HMPLACE_PLAN=heap.yaml %opt -load-pass-plugin=%hmplace_plugin -passes=hm-place,hm-place-merged -S %s -o /dev/null 2>&1 | count 0
; RUN: %hmplan summary --strict heap.yaml 2>&1 | FileCheck %s --check-prefix=HEAPSUM
; HEAPSUM: note: plan entry 'c3.c:0 (calc)' (posix: the ordinary heap) matched no allocation call (in c3.c, the optimizer merged no allocation call of calc
; HEAPSUM: 0 of 1 entries matched, 0 stale, 0 for files not built; 1 of the ordinary heap placed nothing

define ptr @main(i64 %n) !dbg !6 {
  %merged = call ptr @malloc(i64 %n), !dbg !10
  %other = call ptr @malloc(i64 %n), !dbg !12
  %source = call ptr @malloc(i64 %n), !dbg !13
  ret ptr %merged
}
declare ptr @malloc(i64)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "c3.c", directory: "/src")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "make", scope: !1, file: !1, line: 4, unit: !0, spFlags: DISPFlagDefinition)
!6 = distinct !DISubprogram(name: "main", scope: !1, file: !1, line: 13, unit: !0, spFlags: DISPFlagDefinition)
!7 = distinct !DISubprogram(name: "fill", scope: !1, file: !1, line: 30, unit: !0, spFlags: DISPFlagDefinition)
!8 = distinct !DILexicalBlock(scope: !5, file: !1, line: 6, column: 7)
; make's merged malloc, inlined into main at 15:15
!10 = !DILocation(line: 0, scope: !8, inlinedAt: !11)
!11 = distinct !DILocation(line: 15, column: 15, scope: !6)
; fill's merged malloc, inlined into main at 16:3
!12 = !DILocation(line: 0, scope: !7, inlinedAt: !14)
!14 = distinct !DILocation(line: 16, column: 3, scope: !6)
; make's malloc of the source, line 7, inlined at 17:15
!13 = !DILocation(line: 7, column: 9, scope: !5, inlinedAt: !15)
!15 = distinct !DILocation(line: 17, column: 15, scope: !6)
