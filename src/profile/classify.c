/* Frame kinds from text alone: what folded stacks, perf symbols and DTrace
 * frames tell us about a frame. Kept in one place so every reader agrees. */
#include "profile/profile.h"
#include <string.h>

static int starts(const char *s, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

static int ends(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static int contains(const char *s, size_t n, const char *needle)
{
    return memmem(s, n, needle, strlen(needle)) != NULL;
}

static frame_kind_t tier(char marker)
{
    switch (marker) {
    case '*': return FRAME_JS_TURBOFAN;
    case '+': return FRAME_JS_MAGLEV;
    case '^': return FRAME_JS_BASELINE;
    case '~': return FRAME_JS_INTERPRETED;
    default: return FRAME_JS;
    }
}

/* "path.js:12" / "file.mjs:3:4" / "node:fs:441:22": something that names JS source. */
static int names_js_source(const char *s, size_t n)
{
    return contains(s, n, ".js:") || contains(s, n, ".mjs:") || contains(s, n, ".cjs:") || contains(s, n, ".ts:") ||
           contains(s, n, " node:") || starts(s, n, "node:") || ends(s, n, ".js") || ends(s, n, ".mjs");
}

frame_kind_t profile_classify_name(const char *s, size_t n)
{
    /* flamegraph annotations first: they were decided by the collapser. */
    if (ends(s, n, "_[k]")) return FRAME_KERNEL;
    if (ends(s, n, "_[j]") || ends(s, n, "_[i]") || ends(s, n, "_[w]")) n -= 4;

    if (n == 0) return FRAME_UNKNOWN;
    if (s[0] == '(') {
        if (starts(s, n, "(garbage collector)")) return FRAME_GC;
        if (starts(s, n, "(idle)")) return FRAME_IDLE;
        if (starts(s, n, "(program)")) return FRAME_PROGRAM;
        if (starts(s, n, "(root)")) return FRAME_ROOT;
    }
    /* V8 perf-map / jitdump names: "JS:*fib /a.js:1:13", older "LazyCompile:~f", "Function:", "Eval:". */
    static const char *const js_prefixes[] = {"JS:", "LazyCompile:", "Function:", "Eval:", "Script:"};
    for (size_t i = 0; i < sizeof js_prefixes / sizeof *js_prefixes; i++) {
        size_t k = strlen(js_prefixes[i]);
        if (starts(s, n, js_prefixes[i])) return n > k ? tier(s[k]) : FRAME_JS;
    }
    static const char *const builtin_prefixes[] = {"Builtin:", "BytecodeHandler:", "Builtins_", "Stub:", "RegExp:",
                                                   "Handler:", "LoadIC:", "StoreIC:", "KeyedLoadIC:",
                                                   "KeyedStoreIC:", "CallIC:", "BinaryOpIC:", "CompareIC:",
                                                   "JSC-Thunk:", "JSC-InlineCache:"};
    for (size_t i = 0; i < sizeof builtin_prefixes / sizeof *builtin_prefixes; i++)
        if (starts(s, n, builtin_prefixes[i])) return FRAME_BUILTIN;
    if (starts(s, n, "JSC-Baseline:") || starts(s, n, "JSC-LLInt:")) return FRAME_JS_BASELINE;
    if (starts(s, n, "JSC-DFG:") || starts(s, n, "JSC-FTL:")) return FRAME_JS_TURBOFAN;

    /* V8's garbage collector in C++. */
    if (contains(s, n, "v8::internal::Heap::") || contains(s, n, "v8::internal::Scavenge") ||
        contains(s, n, "v8::internal::MarkCompact") || contains(s, n, "v8::internal::MinorMarkCompact") ||
        contains(s, n, "v8::internal::ConcurrentMarking") || contains(s, n, "v8::internal::IncrementalMarking") ||
        contains(s, n, "v8::internal::Sweeper") || contains(s, n, "v8::internal::MarkingVisitor") ||
        contains(s, n, "v8::internal::GCTracer") || contains(s, n, "v8::internal::ScavengerCollector"))
        return FRAME_GC;
    if (starts(s, n, "[unknown]") || (s[0] == '[' && contains(s, n, "unknown"))) return FRAME_UNKNOWN;
    if (starts(s, n, "[perf-") || starts(s, n, "[jitted-")) return FRAME_JS;
    /* DTrace jstack / ustack helper output and plain "fn file.js:line" frames. */
    if (starts(s, n, ">> ") || starts(s, n, "<< ")) return starts(s, n, ">> ") ? FRAME_JS : FRAME_BUILTIN;
    if (!contains(s, n, "::") && names_js_source(s, n)) return FRAME_JS;
    return FRAME_NATIVE;
}
