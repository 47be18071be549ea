/* A live process's socket addresses, from /proc: the socket inode behind /proc/PID/fd/N, looked up
 * in /proc/PID/net/{tcp,tcp6,udp,udp6} (the process's own network namespace). */
#include "target/target.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "0100007F:B58F" (or 32 hex digits of IPv6) -> "127.0.0.1:46479" */
static void proc_addr(const char *hex, char *out, size_t n)
{
    const char *colon = strchr(hex, ':');
    unsigned port = colon ? (unsigned)strtoul(colon + 1, NULL, 16) : 0;
    size_t len = colon ? (size_t)(colon - hex) : 0;
    if (len == 8) {
        unsigned long a = strtoul(hex, NULL, 16);
        snprintf(out, n, "%lu.%lu.%lu.%lu:%u", a & 255, (a >> 8) & 255, (a >> 16) & 255, (a >> 24) & 255, port);
    } else if (len == 32) {
        unsigned char b[16];
        for (int i = 0; i < 4; i++) { /* four host-order 32-bit words */
            char w[9];
            memcpy(w, hex + 8 * i, 8);
            w[8] = 0;
            unsigned long x = strtoul(w, NULL, 16);
            for (int k = 0; k < 4; k++) b[4 * i + k] = (unsigned char)(x >> (8 * k));
        }
        static const unsigned char v4[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (!memcmp(b, v4, 12)) snprintf(out, n, "%u.%u.%u.%u:%u", b[12], b[13], b[14], b[15], port);
        else {
            size_t o = 0;
            o += (size_t)snprintf(out + o, n - o, "[");
            for (int i = 0; i < 8 && o < n; i++)
                o += (size_t)snprintf(out + o, n - o, "%s%x", i ? ":" : "", (b[2 * i] << 8) | b[2 * i + 1]);
            if (o < n) snprintf(out + o, n - o, "]:%u", port);
        }
    } else {
        snprintf(out, n, "?");
    }
}

int target_proc_socket(int pid, int fd, target_socket_t *a)
{
    char path[64], link[128];
    memset(a, 0, sizeof *a);
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    ssize_t k = readlink(path, link, sizeof link - 1);
    if (k <= 0) return -1;
    link[k] = 0;
    unsigned long inode;
    if (sscanf(link, "socket:[%lu]", &inode) != 1) return -1;
    static const char *tables[] = {"tcp", "tcp6", "udp", "udp6"};
    for (int i = 0; i < 4 && !a->ok; i++) {
        snprintf(path, sizeof path, "/proc/%d/net/%s", pid, tables[i]);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        char line[512], loc[80], rem[80];
        unsigned long ino;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, " %*d: %79s %79s %*x %*s %*s %*s %*d %*d %lu", loc, rem, &ino) == 3 && ino == inode) {
                proc_addr(loc, a->local, sizeof a->local);
                proc_addr(rem, a->remote, sizeof a->remote);
                a->ok = 1;
                break;
            }
        }
        fclose(f);
    }
    return a->ok ? 0 : -1;
}
