/*
 * hostops: the host side of SeqVFS's differential test (DifferentialPropertyTest).
 *
 * Usage: hostops SANDBOX
 *
 * Makes SANDBOX (an empty directory on tmpfs that the Java side created with mkdtemp)
 * its root: chroot(SANDBOX), chdir("/"), chmod("/", 01777) like SeqVFS's root, umask
 * 022 like a new SeqVFS task. Then it reads one operation per line on stdin and answers
 * one line on stdout, calling the real system call:
 *
 *   request:  VERB ARG...       strings as "s" + hex bytes ("s" alone is ""), numbers decimal
 *   answer:   "O" [DATA...]     success, with the call's data (see each verb)
 *             "E" ERRNO         failure, the errno number
 *             "S"               skipped: opening a FIFO would block, the call was not made
 *
 * Its own stdin/stdout are moved to descriptors 1000/1001 and 0, 1, 2 are closed, so
 * the descriptors the calls return start at 0, as in a fresh SeqVFS task.
 *
 * Besides the namespace verbs it has file-data and mount verbs, for the tests that mount a
 * size-limited tmpfs as the sandbox (TmpfsLimitDifferentialTest, RemountDifferentialTest):
 * WRITE, PWRITE, WRITEV (the bytes written are 'x'), FTRUNCATE, FALLOCATE, FSTATSIZE
 * ("O size blocks"), FSTATFS ("O blocks bfree bavail flags"), MOUNT (mount(2), so
 * "MOUNT n s2f 0 <MS_REMOUNT|MS_RDONLY> n" remounts the sandbox's root read-only).
 *
 * Nothing here decides what is right: it only reports what the kernel said.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif
#ifndef SYS_renameat2
#define SYS_renameat2 316
#endif

#define IN_FD 1000
#define OUT_FD 1001
#define MAX_ARGS 8
#define MAX_IO (1 << 20)

static FILE *out;

/* ---------------------------------------------------------------- parsing */

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Decodes "s<hex>" in place; returns NULL for "n" (a NULL pointer argument). */
static char *str_arg(char *tok)
{
    if (tok == NULL || tok[0] == 'n')
        return NULL;
    char *src = tok + 1;
    char *dst = tok;
    while (src[0] && src[1]) {
        *dst++ = (char)(hexval(src[0]) * 16 + hexval(src[1]));
        src += 2;
    }
    *dst = '\0';
    return tok;
}

static long num_arg(const char *tok)
{
    return tok == NULL ? 0 : strtol(tok, NULL, 10);
}

/* ---------------------------------------------------------------- answers */

static void put_hex(const char *s, size_t n)
{
    fputc('s', out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%02x", (unsigned char)s[i]);
}

static void answer_rc(long rc)
{
    if (rc < 0)
        fprintf(out, "E %d\n", errno);
    else
        fprintf(out, "O %ld\n", rc);
}

static void answer_stat(int rc, const struct stat *st)
{
    if (rc < 0) {
        fprintf(out, "E %d\n", errno);
        return;
    }
    fprintf(out, "O %u %lu %u %u %ld %lu %lu\n", st->st_mode, (unsigned long)st->st_nlink, st->st_uid,
            st->st_gid, (long)st->st_size, (unsigned long)st->st_ino, (unsigned long)st->st_rdev);
}

/* lseek(fd, 0, SEEK_SET), then getdents64 to the end: "O n name type ino ..." */
static void do_getdents(int fd)
{
    static char buf[65536];
    int count = 0;
    if (lseek(fd, 0, SEEK_SET) < 0) {
        fprintf(out, "E %d\n", errno);
        return;
    }
    char *entries = malloc(1 << 20);
    size_t elen = 0;
    for (;;) {
        long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (n < 0) {
            fprintf(out, "E %d\n", errno);
            free(entries);
            return;
        }
        if (n == 0)
            break;
        for (long off = 0; off < n;) {
            struct {
                uint64_t d_ino;
                int64_t d_off;
                unsigned short d_reclen;
                unsigned char d_type;
                char d_name[];
            } *d = (void *)(buf + off);
            size_t nl = strlen(d->d_name);
            elen += (size_t)snprintf(entries + elen, (1 << 20) - elen, " s");
            for (size_t i = 0; i < nl; i++)
                elen += (size_t)snprintf(entries + elen, (1 << 20) - elen, "%02x", (unsigned char)d->d_name[i]);
            elen += (size_t)snprintf(entries + elen, (1 << 20) - elen, " %u %lu", d->d_type,
                                     (unsigned long)d->d_ino);
            count++;
            off += d->d_reclen;
        }
    }
    fprintf(out, "O %d%s\n", count, entries);
    free(entries);
}

/* Whether open(path, flags) would open an existing FIFO (and so could block). */
static int would_open_fifo(int dirfd, const char *path, int flags)
{
    struct stat st;
    if (flags & (O_PATH | O_DIRECTORY))
        return 0;
    if ((flags & O_CREAT) && (flags & O_EXCL))
        return 0;
    int at = (flags & O_NOFOLLOW) ? AT_SYMLINK_NOFOLLOW : 0;
    if (fstatat(dirfd, path, &st, at) < 0)
        return 0;
    return S_ISFIFO(st.st_mode);
}

static void times_for(int variant, struct timespec ts[2], struct timespec **p)
{
    *p = ts;
    switch (variant) {
    case 0:
        *p = NULL;
        break;
    case 1:
        ts[0].tv_sec = ts[1].tv_sec = 0;
        ts[0].tv_nsec = ts[1].tv_nsec = UTIME_OMIT;
        break;
    case 2:
        ts[0].tv_sec = ts[1].tv_sec = 0;
        ts[0].tv_nsec = ts[1].tv_nsec = UTIME_NOW;
        break;
    case 3:
        ts[0].tv_sec = 1;
        ts[1].tv_sec = 2;
        ts[0].tv_nsec = ts[1].tv_nsec = 0;
        break;
    default:
        ts[0].tv_sec = ts[1].tv_sec = 0;
        ts[0].tv_nsec = ts[1].tv_nsec = 1000000000L;
        break;
    }
}

/* The bytes every write verb writes: MAX_IO of 'x'. */
static char *io_bytes(void)
{
    static char *buf;
    if (buf == NULL) {
        buf = malloc(MAX_IO);
        memset(buf, 'x', MAX_IO);
    }
    return buf;
}

static int own_fd(int fd)
{
    return fd == IN_FD || fd == OUT_FD;
}

/* ---------------------------------------------------------------- dispatch */

static void run(char *verb, char **a)
{
    errno = 0;
    if (!strcmp(verb, "MKDIR")) {          /* dirfd path mode */
        int fd = (int)num_arg(a[0]);
        char *p = str_arg(a[1]);
        mode_t m = (mode_t)num_arg(a[2]);
        answer_rc(fd == AT_FDCWD ? mkdir(p, m) : mkdirat(fd, p, m));
    } else if (!strcmp(verb, "MKNOD")) {   /* dirfd path mode */
        int fd = (int)num_arg(a[0]);
        char *p = str_arg(a[1]);
        mode_t m = (mode_t)num_arg(a[2]);
        answer_rc(fd == AT_FDCWD ? mknod(p, m, 0) : mknodat(fd, p, m, 0));
    } else if (!strcmp(verb, "SYMLINK")) { /* target dirfd path */
        char *target = str_arg(a[0]);
        int fd = (int)num_arg(a[1]);
        char *p = str_arg(a[2]);
        answer_rc(fd == AT_FDCWD ? symlink(target, p) : symlinkat(target, fd, p));
    } else if (!strcmp(verb, "LINK")) {    /* olddirfd old newdirfd new flags */
        int ofd = (int)num_arg(a[0]);
        char *o = str_arg(a[1]);
        int nfd = (int)num_arg(a[2]);
        char *n = str_arg(a[3]);
        int fl = (int)num_arg(a[4]);
        answer_rc(ofd == AT_FDCWD && nfd == AT_FDCWD && fl == 0 ? link(o, n) : linkat(ofd, o, nfd, n, fl));
    } else if (!strcmp(verb, "UNLINK")) {  /* dirfd path flags */
        int fd = (int)num_arg(a[0]);
        char *p = str_arg(a[1]);
        int fl = (int)num_arg(a[2]);
        long rc;
        if (fd == AT_FDCWD && fl == 0)
            rc = unlink(p);
        else if (fd == AT_FDCWD && fl == AT_REMOVEDIR)
            rc = rmdir(p);
        else
            rc = unlinkat(fd, p, fl);
        answer_rc(rc);
    } else if (!strcmp(verb, "RENAME")) {  /* olddirfd old newdirfd new flags */
        int ofd = (int)num_arg(a[0]);
        char *o = str_arg(a[1]);
        int nfd = (int)num_arg(a[2]);
        char *n = str_arg(a[3]);
        int fl = (int)num_arg(a[4]);
        answer_rc(ofd == AT_FDCWD && nfd == AT_FDCWD && fl == 0 ? rename(o, n)
                  : syscall(SYS_renameat2, ofd, o, nfd, n, fl));
    } else if (!strcmp(verb, "READLINK")) { /* dirfd path */
        static char buf[8192];
        int fd = (int)num_arg(a[0]);
        char *p = str_arg(a[1]);
        ssize_t n = fd == AT_FDCWD ? readlink(p, buf, sizeof buf) : readlinkat(fd, p, buf, sizeof buf);
        if (n < 0) {
            fprintf(out, "E %d\n", errno);
        } else {
            fputs("O ", out);
            put_hex(buf, (size_t)n);
            fputc('\n', out);
        }
    } else if (!strcmp(verb, "STAT")) {    /* dirfd path flags */
        struct stat st;
        int fd = (int)num_arg(a[0]);
        char *p = str_arg(a[1]);
        int fl = (int)num_arg(a[2]);
        int rc;
        if (fd == AT_FDCWD && fl == 0)
            rc = stat(p, &st);
        else if (fd == AT_FDCWD && fl == AT_SYMLINK_NOFOLLOW)
            rc = lstat(p, &st);
        else
            rc = fstatat(fd, p, &st, fl);
        answer_stat(rc, &st);
    } else if (!strcmp(verb, "OPEN")) {    /* dirfd path flags mode */
        int fd = (int)num_arg(a[0]);
        char *p = str_arg(a[1]);
        int fl = (int)num_arg(a[2]);
        mode_t m = (mode_t)num_arg(a[3]);
        if (p != NULL && would_open_fifo(fd, p, fl)) {
            fputs("S\n", out);
            return;
        }
        answer_rc(fd == AT_FDCWD ? open(p, fl, m) : openat(fd, p, fl, m));
    } else if (!strcmp(verb, "CLOSE")) {   /* fd */
        int fd = (int)num_arg(a[0]);
        answer_rc(fd == IN_FD || fd == OUT_FD ? (errno = EBADF, -1) : close(fd));
    } else if (!strcmp(verb, "FSTAT")) {   /* fd */
        struct stat st;
        int fd = (int)num_arg(a[0]);
        int rc = fd == IN_FD || fd == OUT_FD ? (errno = EBADF, -1) : fstat(fd, &st);
        answer_stat(rc, &st);
    } else if (!strcmp(verb, "GETDENTS")) { /* fd */
        int fd = (int)num_arg(a[0]);
        if (fd == IN_FD || fd == OUT_FD) {
            fprintf(out, "E %d\n", EBADF);
            return;
        }
        do_getdents(fd);
    } else if (!strcmp(verb, "CHMOD")) {   /* dirfd path mode flags */
        int fd = (int)num_arg(a[0]);
        char *p = str_arg(a[1]);
        mode_t m = (mode_t)num_arg(a[2]);
        int fl = (int)num_arg(a[3]);
        answer_rc(fd == AT_FDCWD && fl == 0 ? chmod(p, m) : syscall(SYS_fchmodat2, fd, p, m, fl));
    } else if (!strcmp(verb, "CHOWN")) {   /* dirfd path uid gid flags */
        int fd = (int)num_arg(a[0]);
        char *p = str_arg(a[1]);
        uid_t u = (uid_t)num_arg(a[2]);
        gid_t g = (gid_t)num_arg(a[3]);
        int fl = (int)num_arg(a[4]);
        long rc;
        if (fd == AT_FDCWD && fl == 0)
            rc = chown(p, u, g);
        else if (fd == AT_FDCWD && fl == AT_SYMLINK_NOFOLLOW)
            rc = lchown(p, u, g);
        else
            rc = fchownat(fd, p, u, g, fl);
        answer_rc(rc);
    } else if (!strcmp(verb, "UTIMENS")) { /* dirfd path variant flags */
        struct timespec ts[2];
        struct timespec *tp;
        int fd = (int)num_arg(a[0]);
        char *p = str_arg(a[1]);
        times_for((int)num_arg(a[2]), ts, &tp);
        int fl = (int)num_arg(a[3]);
        answer_rc(syscall(SYS_utimensat, fd, p, tp, fl));
    } else if (!strcmp(verb, "ACCESS")) {  /* dirfd path mode flags */
        int fd = (int)num_arg(a[0]);
        char *p = str_arg(a[1]);
        int m = (int)num_arg(a[2]);
        int fl = (int)num_arg(a[3]);
        answer_rc(fd == AT_FDCWD && fl == 0 ? access(p, m) : syscall(SYS_faccessat2, fd, p, m, fl));
    } else if (!strcmp(verb, "CHDIR")) {   /* path */
        answer_rc(chdir(str_arg(a[0])));
    } else if (!strcmp(verb, "FCHDIR")) {  /* fd */
        int fd = (int)num_arg(a[0]);
        answer_rc(fd == IN_FD || fd == OUT_FD ? (errno = EBADF, -1) : fchdir(fd));
    } else if (!strcmp(verb, "GETCWD")) {
        static char buf[8192];
        long n = syscall(SYS_getcwd, buf, sizeof buf);
        if (n < 0) {
            fprintf(out, "E %d\n", errno);
        } else {
            fputs("O ", out);
            put_hex(buf, strlen(buf));
            fputc('\n', out);
        }
    } else if (!strcmp(verb, "WRITE")) {   /* fd len */
        int fd = (int)num_arg(a[0]);
        long n = num_arg(a[1]);
        answer_rc(own_fd(fd) ? (errno = EBADF, -1) : n > MAX_IO ? (errno = EINVAL, -1)
                  : write(fd, io_bytes(), (size_t)n));
    } else if (!strcmp(verb, "PWRITE")) {  /* fd len offset */
        int fd = (int)num_arg(a[0]);
        long n = num_arg(a[1]);
        answer_rc(own_fd(fd) ? (errno = EBADF, -1) : n > MAX_IO ? (errno = EINVAL, -1)
                  : pwrite(fd, io_bytes(), (size_t)n, (off_t)num_arg(a[2])));
    } else if (!strcmp(verb, "WRITEV")) {  /* fd count len... (count <= MAX_ARGS - 2) */
        int fd = (int)num_arg(a[0]);
        int cnt = (int)num_arg(a[1]);
        struct iovec iov[MAX_ARGS];
        long total = 0;
        if (cnt < 0 || cnt > MAX_ARGS - 2) {
            fprintf(out, "X bad WRITEV count %d\n", cnt);
            return;
        }
        for (int i = 0; i < cnt; i++) {
            iov[i].iov_base = io_bytes();
            iov[i].iov_len = (size_t)num_arg(a[2 + i]);
            total += (long)iov[i].iov_len;
        }
        answer_rc(own_fd(fd) ? (errno = EBADF, -1) : total > MAX_IO ? (errno = EINVAL, -1)
                  : writev(fd, iov, cnt));
    } else if (!strcmp(verb, "FTRUNCATE")) { /* fd len */
        int fd = (int)num_arg(a[0]);
        answer_rc(own_fd(fd) ? (errno = EBADF, -1) : ftruncate(fd, (off_t)num_arg(a[1])));
    } else if (!strcmp(verb, "FALLOCATE")) { /* fd mode offset len */
        int fd = (int)num_arg(a[0]);
        answer_rc(own_fd(fd) ? (errno = EBADF, -1)
                  : fallocate(fd, (int)num_arg(a[1]), (off_t)num_arg(a[2]), (off_t)num_arg(a[3])));
    } else if (!strcmp(verb, "FSTATSIZE")) { /* fd: "O size blocks" (blocks of 512 bytes) */
        struct stat st;
        int fd = (int)num_arg(a[0]);
        if (own_fd(fd) ? (errno = EBADF, -1) : fstat(fd, &st)) {
            fprintf(out, "E %d\n", errno);
        } else {
            fprintf(out, "O %ld %ld\n", (long)st.st_size, (long)st.st_blocks);
        }
    } else if (!strcmp(verb, "FSTATFS")) { /* fd: "O blocks bfree bavail flags" */
        struct statfs sf;
        int fd = (int)num_arg(a[0]);
        if (own_fd(fd) ? (errno = EBADF, -1) : fstatfs(fd, &sf)) {
            fprintf(out, "E %d\n", errno);
        } else {
            fprintf(out, "O %lu %lu %lu %lu\n", (unsigned long)sf.f_blocks, (unsigned long)sf.f_bfree,
                    (unsigned long)sf.f_bavail, (unsigned long)sf.f_flags);
        }
    } else if (!strcmp(verb, "MOUNT")) {   /* source target fstype flags data */
        char *src = str_arg(a[0]);
        char *tgt = str_arg(a[1]);
        char *type = str_arg(a[2]);
        unsigned long fl = strtoul(a[3] == NULL ? "0" : a[3], NULL, 10);
        char *data = str_arg(a[4]);
        answer_rc(mount(src, tgt, type, fl, data));
    } else if (!strcmp(verb, "UMASK")) {   /* mask */
        fprintf(out, "O %d\n", (int)umask((mode_t)num_arg(a[0])));
    } else {
        fprintf(out, "X unknown verb %s\n", verb);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: hostops SANDBOX\n");
        return 2;
    }
    if (dup2(0, IN_FD) < 0 || dup2(1, OUT_FD) < 0) {
        printf("X dup2: %s\n", strerror(errno));
        return 1;
    }
    FILE *in = fdopen(IN_FD, "r");
    out = fdopen(OUT_FD, "w");
    close(0);
    close(1);
    close(2);
    for (int fd = 3; fd < IN_FD; fd++)
        close(fd);
    if (chroot(argv[1]) < 0 || chdir("/") < 0 || chmod("/", 01777) < 0) {
        fprintf(out, "X chroot %s: %s\n", argv[1], strerror(errno));
        fflush(out);
        return 1;
    }
    umask(022);
    fputs("READY\n", out);
    fflush(out);

    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, in)) > 0) {
        if (line[len - 1] == '\n')
            line[len - 1] = '\0';
        char *save = NULL;
        char *verb = strtok_r(line, " ", &save);
        if (verb == NULL)
            continue;
        char *args[MAX_ARGS] = {0};
        for (int i = 0; i < MAX_ARGS; i++)
            args[i] = strtok_r(NULL, " ", &save);
        run(verb, args);
        fflush(out);
    }
    free(line);
    return 0;
}
