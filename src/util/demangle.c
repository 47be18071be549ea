/* Uses libiberty's cplus_demangle (libiberty-dev): one demangler for C++ and both Rust
 * schemes, the one binutils and perf use; writing a demangler is a project of its own. */
#include "util/demangle.h"
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

void demangle_append(buf_t *out, const char *name)
{
    char *d = (name[0] == '_' && (name[1] == 'Z' || name[1] == 'R'))
                  ? cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO)
                  : NULL;
    buf_puts(out, d ? d : name);
    free(d);
}

static int is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

/* "h" and 16 lowercase hex digits: rustc's legacy hash */
static int is_hash(const char *s)
{
    if (s[0] != 'h') return 0;
    for (int i = 1; i <= 16; i++)
        if (!is_hex(s[i])) return 0;
    return 1;
}

/* libiberty's Rust demangler; appends and returns 1 when it knows the (NUL-terminated) name */
static int rust_demangle_to(buf_t *out, const char *mangled)
{
    char *d = cplus_demangle(mangled, DMGL_PARAMS | DMGL_ANSI | DMGL_RUST);
    if (!d) return 0;
    buf_puts(out, d);
    free(d);
    return 1;
}

int demangle_rust(buf_t *out, const char *s, size_t n)
{
    if (n < 4) return 0;
    buf_t m = {0};
    int ok = 0;
    if (s[0] == '_' && (s[1] == 'R' || (s[1] == 'Z' && s[2] == 'N' && n >= 24 && s[n - 1] == 'E' &&
                                        !memcmp(s + n - 20, "17", 2) && is_hash(s + n - 18)))) {
        /* mangled: v0, or legacy (a C++ nested name ending in the hash) */
        buf_append(&m, s, n);
        buf_putc(&m, 0);
        ok = rust_demangle_to(out, m.data);
    } else if (n > 19 && !memcmp(s + n - 19, "::", 2) && is_hash(s + n - 17)) {
        /* half demangled legacy: mangle it again ("a::b" -> "_ZN1a1b17h...E"), then demangle */
        size_t body = n - 19;
        buf_puts(&m, "_ZN");
        int valid = body > 0;
        for (size_t start = 0; valid && start <= body;) {
            const char *sep = start < body ? memmem(s + start, body - start, "::", 2) : NULL;
            size_t end = sep ? (size_t)(sep - s) : body;
            if (end == start) valid = 0;
            for (size_t i = start; valid && i < end; i++)
                if (s[i] == ' ' || s[i] == '<' || s[i] == '>' || s[i] == ':' || s[i] == '(' || s[i] == ')') valid = 0;
            if (!valid) break;
            buf_put_u64(&m, end - start);
            buf_append(&m, s + start, end - start);
            start = end + 2;
            if (!sep) break;
        }
        buf_puts(&m, "17");
        buf_append(&m, s + n - 17, 17);
        buf_puts(&m, "E");
        buf_putc(&m, 0);
        ok = valid && rust_demangle_to(out, m.data);
        if (!ok) {
            buf_append(out, s, body); /* at least without the hash, as inferno does */
            ok = 1;
        }
    }
    buf_free(&m);
    return ok;
}
