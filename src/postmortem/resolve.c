/* Where a command's value comes from: an address, or a JavaScript path from the global object
 * (globalThis.app.routes[3]["x"], a global's name), from require.cache["/abs.js"] or module, or
 * from an address (0x1234.a.b[3]), walked property by property as the program would. */
#include "postmortem/resolve.h"
#include "util/diag.h"
#include "util/options.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pm_parse_addr(const char *cmd, const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 0);
    if (errno || end == s || *end) {
        char name[64];
        snprintf(name, sizeof name, "core %s", cmd);
        opt_usage_error(&(opt_cmd_t){name, NULL, NULL, 0, NULL}, "'%s' is not an address (try 0x...)", s);
        return -1;
    }
    *out = x;
    return 0;
}

int pm_lookup(v8_t *v, uint64_t obj, const char *key, uint64_t *out)
{
    int dbl;
    double d;
    v8_value_t x;
    if (v8_value(v, obj, &x) == 0 && x.kind == V8_V_GLOBAL && x.a) obj = x.a;
    if (!strcmp(key, "length") && x.kind == V8_V_ARRAY) {
        *out = 0;
        return (int)x.length + 2; /* the caller turns this back into a number */
    }
    uint64_t o = obj;
    for (int hop = 0; hop < 64; hop++) {
        int rc = v8_own_property(v, o, key, out, &dbl, &d);
        if (rc == 0) return dbl ? -3 : 0;
        if (rc == -2) return -2;
        if (v8_prototype(v, o, &o) != 0) break;
    }
    return -1;
}

/* A global defined by a getter (Node's `process`): the object of that name the getter's closure
 * holds (its constructor has the property's name). */
typedef struct {
    v8_t *v;
    const char *name;
    uint64_t found;
} held_t;

static int held_cb(void *ctx, uint64_t slot, uint64_t value)
{
    held_t *h = ctx;
    buf_t n = {0};
    (void)slot;
    v8_function_t fi;
    if (v8_is_smi(h->v, value)) return 0;
    if (v8_function_info(h->v, value, &fi) == 0) { /* a function of that name */
        if (!strcmp(fi.name, h->name)) h->found = value;
        v8_function_free(&fi);
    } else if (v8_constructor_name(h->v, value, &n) == 0 && !strcmp(n.data, h->name)) { /* an instance */
        h->found = value;
    }
    buf_free(&n);
    return h->found != 0;
}

static int held_value(v8_t *v, uint64_t obj, const char *name, const char *held, uint64_t *out)
{
    uint64_t pair, getter, o = obj;
    int rc = pm_lookup(v, obj, name, &pair);
    if (rc == 0) {
        *out = pair;
        return 0;
    }
    if (rc != -2) return -1;
    for (int hop = 0; hop < 64; hop++) { /* the object on the chain that has the accessor */
        rc = v8_own_property(v, o, name, &pair, &(int){0}, &(double){0});
        if (rc != -1 || v8_prototype(v, o, &o) != 0) break;
    }
    if (rc != -2 || v8_accessor_getter(v, pair, &getter) != 0) return -1;
    held_t h = {v, held, 0};
    v8_context_slots(v, getter, held_cb, &h);
    *out = h.found;
    return h.found ? 0 : -1;
}

static int global_value(v8_t *v, uint64_t global, const char *name, uint64_t *out)
{
    return held_value(v, global, name, name, out);
}

/* The main CommonJS module: process.mainModule, else the receiver of the outermost
 * Module.prototype._compile frame on the main thread (a Module: it has exports, filename, loaded). */
static int main_module(v8_t *v, uint64_t global, uint64_t *out)
{
    uint64_t process, x;
    if (global_value(v, global, "process", &process) == 0 && pm_lookup(v, process, "mainModule", out) == 0 &&
        v8_oddball_kind(v, *out) < 0)
        return 0;
    v8_frame_t frames[256];
    size_t n = v8_stack(v, 0, frames, sizeof frames / sizeof frames[0]);
    for (size_t i = n; i-- > 0;) {
        uint64_t r;
        if (frames[i].kind != V8_FRAME_JS || v8_frame_arg(v, &frames[i], -1, &r) != 0 || v8_is_smi(v, r)) continue;
        if (pm_lookup(v, r, "exports", &x) == 0 && pm_lookup(v, r, "filename", &x) == 0 &&
            pm_lookup(v, r, "loaded", &x) == 0) {
            *out = r;
            return 0;
        }
    }
    return -1;
}

/* Reads the next path step (".name", "[3]", "['key']") into key; returns the rest or NULL. */
static const char *next_step(const char *s, buf_t *key, const char **err)
{
    buf_clear(key);
    if (*s == '.') {
        s++;
        const char *b = s;
        while (*s && *s != '.' && *s != '[') s++;
        if (s == b) {
            *err = "a name after '.'";
            return NULL;
        }
        buf_append(key, b, (size_t)(s - b));
        return s;
    }
    if (*s == '[') {
        s++;
        if (*s == '"' || *s == '\'') {
            char q = *s++;
            while (*s && *s != q) {
                if (*s == '\\' && s[1]) s++;
                buf_putc(key, *s++);
            }
            if (*s != q || s[1] != ']') {
                *err = "a closing quote and ']'";
                return NULL;
            }
            return s + 2;
        }
        const char *b = s;
        while (isdigit((unsigned char)*s)) s++;
        if (s == b || *s != ']') {
            *err = "an index or a quoted key inside [...]";
            return NULL;
        }
        buf_append(key, b, (size_t)(s - b));
        return s + 1;
    }
    *err = "'.' or '['";
    return NULL;
}

int pm_resolve(v8_t *v, const char *cmd, const char *expr, uint64_t *out)
{
    const char *name = target_name(v8_target(v));
    const char *p = expr;
    while (*p && *p != '.' && *p != '[') p++;
    uint64_t global = 0, cur;
    /* a path may start at an address (the `this` or an argument `stack -v` showed): 0x1234.a.b[3] */
    if (isdigit((unsigned char)expr[0])) {
        if (!*p) return pm_parse_addr(cmd, expr, out) == 0 ? 0 : EXIT_USAGE;
        char head[32];
        if ((size_t)(p - expr) >= sizeof head) return pm_parse_addr(cmd, expr, out) == 0 ? 0 : EXIT_USAGE;
        memcpy(head, expr, (size_t)(p - expr));
        head[p - expr] = 0;
        if (pm_parse_addr(cmd, head, &cur) != 0) return EXIT_USAGE;
    } else if (v8_global_object(v, &global) != 0) {
        diag_error(name, 0, "%s: no JavaScript frame on the main thread leads to the global object; give an address",
                   cmd);
        return EXIT_FAIL;
    }
    buf_t root = {0}, key = {0}, walked = {0};
    buf_append(&root, expr, (size_t)(p - expr));
    buf_append(&walked, expr, (size_t)(p - expr));
    int rc = EXIT_OK;
    const char *err = NULL;
    if (isdigit((unsigned char)expr[0])) {
        /* cur: the address */
    } else if (!strcmp(root.data, "globalThis") || !strcmp(root.data, "global")) {
        cur = global;
    } else if (!strcmp(root.data, "require") || !strcmp(root.data, "module")) {
        /* the main module is process.mainModule; its class, Module, keeps require.cache as _cache */
        uint64_t mod, ctor;
        if (main_module(v, global, &mod) != 0) {
            diag_error(name, 0, "%s: no main CommonJS module (process.mainModule) to find %s from", cmd, root.data);
            rc = EXIT_FAIL;
            goto out;
        }
        cur = mod;
        if (!strcmp(root.data, "require")) {
            if (next_step(p, &key, &err) == NULL || strcmp(key.data, "cache") ||
                held_value(v, mod, "constructor", "Module", &ctor) != 0 || pm_lookup(v, ctor, "_cache", &cur) != 0) {
                diag_error(name, 0, "%s: of require, only require.cache (the main context's module cache) can be read",
                           cmd);
                rc = EXIT_FAIL;
                goto out;
            }
            p = next_step(p, &key, &err);
            buf_puts(&walked, ".cache");
        }
    } else if (global_value(v, global, root.data, &cur) != 0) {
        diag_error(
            name, 0,
            "%s: the global object has no property '%s' (paths start at globalThis, a global, require.cache or module)",
            cmd, root.data);
        rc = EXIT_FAIL;
        goto out;
    }
    while (*p) {
        p = next_step(p, &key, &err);
        if (!p) {
            char cname[64];
            snprintf(cname, sizeof cname, "core %s", cmd);
            opt_usage_error(&(opt_cmd_t){cname, NULL, NULL, 0, NULL}, "'%s': expected %s after '%s'", expr, err,
                            walked.data);
            rc = EXIT_USAGE;
            goto out;
        }
        uint64_t next;
        int r = pm_lookup(v, cur, key.data, &next);
        if (r == -2 || r == -3 || r > 0) {
            diag_error(name, 0, "%s: %s.%s is %s", cmd, walked.data, key.data,
                       r == -2 ? "an accessor (its getter cannot run in a core)"
                               : "a number, not an object: print the parent");
            rc = EXIT_FAIL;
            goto out;
        }
        if (r != 0) {
            buf_t d = {0};
            v8_describe(v, cur, &d);
            diag_error(name, 0, "%s: %s (%s) has no property '%s'", cmd, walked.data, d.data, key.data);
            buf_free(&d);
            rc = EXIT_FAIL;
            goto out;
        }
        buf_printf(&walked, "[\"%s\"]", key.data);
        cur = next;
    }
    *out = cur;
out:
    buf_free(&root);
    buf_free(&key);
    buf_free(&walked);
    return rc;
}
