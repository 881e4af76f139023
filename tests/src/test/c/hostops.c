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
 * ("O size blocks"), FSTATFS ("O blocks bfree bavail flags files ffree"), MOUNT (mount(2), so
 * "MOUNT n s2f 0 <MS_REMOUNT|MS_RDONLY> n" remounts the sandbox's root read-only), UMOUNT
 * (umount2(2): "UMOUNT target flags").
 *
 * Threads and blocking calls, for the close-race tests (CloseRaceDifferentialTest): READ fd
 * len ("O n"), OPENFIFO dirfd path flags (an open of a FIFO that cannot block: O_RDWR, or
 * O_NONBLOCK), PIPE ("O r w"), SOCKETPAIR ("O a b", AF_UNIX stream), FLOCK fd op, SETLK fd cmd
 * type start len (fcntl F_SETLK/F_SETLKW with a struct flock), CHILDLOCK path type start len
 * (a forked child takes that POSIX lock and holds it) and CHILDUNLOCK (the child exits,
 * dropping it); SPAWN id VERB ARG... runs the verb in a new thread of this process (sharing
 * its descriptor table) and answers "O 0" at once, PARKED id answers "O 1" once that thread
 * sleeps in the kernel (state S in /proc/self/task/TID/stat) and "O 0" before, JOIN id waits
 * for it and answers what the verb answered. SIGPIPE is ignored: EPIPE is an answer.
 *
 * Extended attributes (XattrDifferentialTest): SETXATTR how target name value flags, GETXATTR
 * how target name ("O value"), LISTXATTR how target ("O list": the NUL-separated names),
 * REMOVEXATTR how target name; how is 0 (path, follows), 1 (l-: the link itself) or 2 (f-:
 * target is a descriptor number, as "s" + its decimal digits in hex); buffers are
 * XATTR_SIZE_MAX and XATTR_LIST_MAX bytes, so ERANGE comes only from names. SETEUID uid gid
 * switches the effective ids (saved ids stay 0, so "SETEUID 0 0" switches back; capabilities
 * follow euid as setresuid(2) says).
 * SETCRED uid gid [group...] makes the server that user for the rest of its life (setgroups,
 * setresgid, setresuid), for the scenarios run as a non-root user (MountCredentialsTest).
 *
 * inotify (InotifyDifferentialTest): INOTIFY_INIT1 flags ("O fd"), INOTIFY_ADD_WATCH fd path mask
 * ("O wd"), INOTIFY_RM_WATCH fd wd, INOTIFY_READ fd (a non-blocking descriptor, read until
 * EAGAIN: "O count" then wd mask cookie name for each event, the name a string token).
 *
 * Nothing here decides what is right: it only reports what the kernel said.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <grp.h>
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
#define PROC_FD 1002 /* /proc, opened before the chroot (PARKED reads it; ProcErrnoDifferentialTest
                        * makes "*at" calls with it as the dirfd) */
#define MAX_ARGS 8
#define MAX_IO (1 << 20)

/* Where answers go: the server's output, or a spawned thread's own buffer. */
static __thread FILE *out;

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
    return fd == IN_FD || fd == OUT_FD || fd == PROC_FD;
}

/* ---------------------------------------------------------------- threads */

#define MAX_THREADS 8

struct spawned {
    pthread_t thread;
    volatile pid_t tid;
    char *verb;
    char *args[MAX_ARGS];
    char *line;        /* the request, owned */
    char *answer;      /* what the verb answered, once done */
    size_t answer_len;
    int used;
};

static struct spawned threads[MAX_THREADS];
static pid_t lock_child = -1;
static int lock_child_go = -1;

static void run(char *verb, char **a);

static void *spawned_main(void *arg)
{
    struct spawned *t = arg;
    t->tid = (pid_t)syscall(SYS_gettid);
    out = open_memstream(&t->answer, &t->answer_len);
    run(t->verb, t->args);
    fclose(out);
    return NULL;
}

/* Whether thread t sleeps in the kernel now (state S or D). */
static int parked(struct spawned *t)
{
    char path[64];
    char stat[512];
    if (t->tid == 0)
        return 0;
    snprintf(path, sizeof path, "self/task/%d/stat", (int)t->tid);
    int fd = openat(PROC_FD, path, O_RDONLY);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
    if (f == NULL)
        return 0;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    char *p = strrchr(stat, ')');
    return p != NULL && p[1] == ' ' && (p[2] == 'S' || p[2] == 'D');
}

/* SPAWN id VERB ARG...: the rest of the request runs in a new thread. */
static void spawn(char **a)
{
    int id = (int)num_arg(a[0]);
    if (id < 0 || id >= MAX_THREADS || threads[id].used || a[1] == NULL) {
        fprintf(out, "X bad SPAWN %d\n", id);
        return;
    }
    struct spawned *t = &threads[id];
    memset(t, 0, sizeof *t);
    t->used = 1;
    /* copy the tokens: the request line is reused for the next request */
    size_t len = 0;
    for (int i = 1; i < MAX_ARGS && a[i] != NULL; i++)
        len += strlen(a[i]) + 1;
    t->line = malloc(len + 1);
    char *p = t->line;
    for (int i = 1; i < MAX_ARGS && a[i] != NULL; i++) {
        size_t l = strlen(a[i]);
        memcpy(p, a[i], l + 1);
        if (i == 1)
            t->verb = p;
        else
            t->args[i - 2] = p;
        p += l + 1;
    }
    if (pthread_create(&t->thread, NULL, spawned_main, t) != 0) {
        t->used = 0;
        fprintf(out, "E %d\n", errno);
        return;
    }
    fputs("O 0\n", out);
}

static void join(char **a)
{
    int id = (int)num_arg(a[0]);
    if (id < 0 || id >= MAX_THREADS || !threads[id].used) {
        fprintf(out, "X bad JOIN %d\n", id);
        return;
    }
    struct spawned *t = &threads[id];
    pthread_join(t->thread, NULL);
    fputs(t->answer == NULL ? "X no answer\n" : t->answer, out);
    free(t->answer);
    free(t->line);
    t->used = 0;
}

/* CHILDLOCK path type start len: a child process takes the POSIX lock and holds it. */
static void child_lock(char **a)
{
    char *path = str_arg(a[0]);
    int ready[2], go[2];
    if (lock_child >= 0 || pipe(ready) < 0 || pipe(go) < 0) {
        fprintf(out, "X CHILDLOCK\n");
        return;
    }
    fflush(out);
    pid_t pid = fork();
    if (pid == 0) {
        close(ready[0]);
        close(go[1]);
        int fd = open(path, O_RDWR);
        struct flock fl = {.l_type = (short)num_arg(a[1]), .l_whence = SEEK_SET,
                           .l_start = num_arg(a[2]), .l_len = num_arg(a[3])};
        int rc = fd < 0 ? -1 : fcntl(fd, F_SETLK, &fl);
        int result = rc < 0 ? errno : 0;
        if (write(ready[1], &result, sizeof result) < 0)
            _exit(1);
        char c;
        if (read(go[0], &c, 1) < 0)
            _exit(1);
        _exit(0);
    }
    close(ready[1]);
    close(go[0]);
    int result = -1;
    if (pid < 0 || read(ready[0], &result, sizeof result) != sizeof result) {
        fprintf(out, "X CHILDLOCK fork\n");
        return;
    }
    close(ready[0]);
    lock_child = pid;
    lock_child_go = go[1];
    if (result != 0)
        fprintf(out, "E %d\n", result);
    else
        fputs("O 0\n", out);
}

static void child_unlock(void)
{
    if (lock_child < 0) {
        fprintf(out, "X no CHILDLOCK\n");
        return;
    }
    close(lock_child_go);
    waitpid(lock_child, NULL, 0);
    lock_child = -1;
    fputs("O 0\n", out);
}

/* ---------------------------------------------------------------- xattrs */

static char xattr_buf[65536];

static void xattr_verb(const char *verb, char **a)
{
    int how = (int)num_arg(a[0]);
    char *target = str_arg(a[1]);
    int fd = how == 2 && target != NULL ? atoi(target) : -1;
    if (!strcmp(verb, "SETXATTR")) {
        char *name = str_arg(a[2]);
        char *value = str_arg(a[3]);
        int fl = (int)num_arg(a[4]);
        size_t n = value == NULL ? 0 : strlen(value);
        answer_rc(how == 0 ? setxattr(target, name, value, n, fl)
                  : how == 1 ? lsetxattr(target, name, value, n, fl)
                  : fsetxattr(fd, name, value, n, fl));
    } else if (!strcmp(verb, "GETXATTR")) {
        char *name = str_arg(a[2]);
        ssize_t n = how == 0 ? getxattr(target, name, xattr_buf, sizeof xattr_buf)
                  : how == 1 ? lgetxattr(target, name, xattr_buf, sizeof xattr_buf)
                  : fgetxattr(fd, name, xattr_buf, sizeof xattr_buf);
        if (n < 0) {
            fprintf(out, "E %d\n", errno);
        } else {
            fputs("O ", out);
            put_hex(xattr_buf, (size_t)n);
            fputc('\n', out);
        }
    } else if (!strcmp(verb, "LISTXATTR")) {
        ssize_t n = how == 0 ? listxattr(target, xattr_buf, sizeof xattr_buf)
                  : how == 1 ? llistxattr(target, xattr_buf, sizeof xattr_buf)
                  : flistxattr(fd, xattr_buf, sizeof xattr_buf);
        if (n < 0) {
            fprintf(out, "E %d\n", errno);
        } else {
            fputs("O ", out);
            put_hex(xattr_buf, (size_t)n);
            fputc('\n', out);
        }
    } else {
        char *name = str_arg(a[2]);
        answer_rc(how == 0 ? removexattr(target, name)
                  : how == 1 ? lremovexattr(target, name)
                  : fremovexattr(fd, name));
    }
}

static void seteuid_verb(char **a)
{
    uid_t uid = (uid_t)num_arg(a[0]);
    gid_t gid = (gid_t)num_arg(a[1]);
    long rc;
    if (uid == 0) {
        rc = setresuid(-1, 0, -1);
        if (rc == 0)
            rc = setresgid(-1, gid, -1);
    } else {
        rc = setresgid(-1, gid, -1);
        if (rc == 0)
            rc = setresuid(-1, uid, -1);
    }
    answer_rc(rc);
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
    } else if (!strcmp(verb, "OPENFIFO")) { /* dirfd path flags: a FIFO open that cannot block */
        int fd = (int)num_arg(a[0]);
        char *p = str_arg(a[1]);
        int fl = (int)num_arg(a[2]);
        int acc = fl & O_ACCMODE;
        if (acc != O_RDWR && !(fl & O_NONBLOCK)) {
            fprintf(out, "X OPENFIFO would block\n");
            return;
        }
        answer_rc(openat(fd, p, fl));
    } else if (!strcmp(verb, "CLOSE")) {   /* fd */
        int fd = (int)num_arg(a[0]);
        answer_rc(own_fd(fd) ? (errno = EBADF, -1) : close(fd));
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
        answer_rc(own_fd(fd) ? (errno = EBADF, -1) : fchdir(fd));
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
    } else if (!strcmp(verb, "TRUNCATE")) { /* path len */
        answer_rc(truncate(str_arg(a[0]), (off_t)num_arg(a[1])));
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
            fprintf(out, "O %lu %lu %lu %lu %lu %lu\n", (unsigned long)sf.f_blocks,
                    (unsigned long)sf.f_bfree, (unsigned long)sf.f_bavail, (unsigned long)sf.f_flags,
                    (unsigned long)sf.f_files, (unsigned long)sf.f_ffree);
        }
    } else if (!strcmp(verb, "MOUNT")) {   /* source target fstype flags data */
        char *src = str_arg(a[0]);
        char *tgt = str_arg(a[1]);
        char *type = str_arg(a[2]);
        unsigned long fl = strtoul(a[3] == NULL ? "0" : a[3], NULL, 10);
        char *data = str_arg(a[4]);
        answer_rc(mount(src, tgt, type, fl, data));
    } else if (!strcmp(verb, "INOTIFY_INIT1")) { /* flags: "O fd" */
        answer_rc(inotify_init1((int)num_arg(a[0])));
    } else if (!strcmp(verb, "INOTIFY_ADD_WATCH")) { /* fd path mask: "O wd" */
        int fd = (int)num_arg(a[0]);
        char *p = str_arg(a[1]);
        answer_rc(inotify_add_watch(fd, p, (uint32_t)strtoul(a[2], NULL, 10)));
    } else if (!strcmp(verb, "INOTIFY_RM_WATCH")) { /* fd wd */
        answer_rc(inotify_rm_watch((int)num_arg(a[0]), (int)num_arg(a[1])));
    } else if (!strcmp(verb, "INOTIFY_READ")) { /* fd (O_NONBLOCK): "O n {wd mask cookie name}..." */
        /* Reads until EAGAIN; each event is wd, mask, cookie (decimal) and its name as a
         * string token ("s" + hex, "n" for none). */
        int fd = (int)num_arg(a[0]);
        static char ib[1 << 16] __attribute__((aligned(8)));
        size_t cap = 1 << 20, used = 0, count = 0;
        char *acc = malloc(cap);
        for (;;) {
            ssize_t n = read(fd, ib, sizeof ib);
            if (n < 0) {
                if (errno == EAGAIN)
                    break;
                free(acc);
                answer_rc(-1);
                return;
            }
            for (ssize_t off = 0; off < n;) {
                struct inotify_event *ev = (struct inotify_event *)(ib + off);
                if (cap - used < 64 + 2 * (size_t)ev->len) {
                    cap = cap * 2 + 2 * (size_t)ev->len;
                    acc = realloc(acc, cap);
                }
                used += (size_t)snprintf(acc + used, cap - used, " %d %u %u ", ev->wd, ev->mask,
                                         ev->cookie);
                if (ev->len == 0) {
                    acc[used++] = 'n';
                } else {
                    acc[used++] = 's';
                    for (size_t i = 0; i < strlen(ev->name); i++)
                        used += (size_t)snprintf(acc + used, cap - used, "%02x",
                                                 (unsigned char)ev->name[i]);
                }
                count++;
                off += (ssize_t)sizeof(struct inotify_event) + ev->len;
            }
        }
        fprintf(out, "O %zu", count);
        fwrite(acc, 1, used, out);
        fputc('\n', out);
        free(acc);
    } else if (!strcmp(verb, "READ")) {    /* fd len: "O n" */
        int fd = (int)num_arg(a[0]);
        long n = num_arg(a[1]);
        char *b = malloc(n > 0 ? (size_t)n : 1);
        answer_rc(own_fd(fd) ? (errno = EBADF, -1) : n > MAX_IO ? (errno = EINVAL, -1)
                  : read(fd, b, (size_t)n));
        free(b);
    } else if (!strcmp(verb, "PIPE")) {
        int p[2];
        if (pipe(p) < 0)
            fprintf(out, "E %d\n", errno);
        else
            fprintf(out, "O %d %d\n", p[0], p[1]);
    } else if (!strcmp(verb, "SOCKETPAIR")) {
        int p[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, p) < 0)
            fprintf(out, "E %d\n", errno);
        else
            fprintf(out, "O %d %d\n", p[0], p[1]);
    } else if (!strcmp(verb, "FLOCK")) {   /* fd op */
        int fd = (int)num_arg(a[0]);
        answer_rc(own_fd(fd) ? (errno = EBADF, -1) : flock(fd, (int)num_arg(a[1])));
    } else if (!strcmp(verb, "SETLK")) {   /* fd cmd type start len */
        int fd = (int)num_arg(a[0]);
        struct flock fl = {.l_type = (short)num_arg(a[2]), .l_whence = SEEK_SET,
                           .l_start = num_arg(a[3]), .l_len = num_arg(a[4])};
        answer_rc(own_fd(fd) ? (errno = EBADF, -1) : fcntl(fd, (int)num_arg(a[1]), &fl));
    } else if (!strcmp(verb, "CHILDLOCK")) {
        child_lock(a);
    } else if (!strcmp(verb, "CHILDUNLOCK")) {
        child_unlock();
    } else if (!strcmp(verb, "SPAWN")) {
        spawn(a);
    } else if (!strcmp(verb, "PARKED")) {  /* id */
        int id = (int)num_arg(a[0]);
        fprintf(out, "O %d\n", id >= 0 && id < MAX_THREADS && threads[id].used
                ? parked(&threads[id]) : 0);
    } else if (!strcmp(verb, "JOIN")) {
        join(a);
    } else if (!strcmp(verb, "UMOUNT")) {  /* target flags */
        answer_rc(umount2(str_arg(a[0]), (int)num_arg(a[1])));
    } else if (!strcmp(verb, "SETXATTR") || !strcmp(verb, "GETXATTR")
               || !strcmp(verb, "LISTXATTR") || !strcmp(verb, "REMOVEXATTR")) {
        xattr_verb(verb, a);
    } else if (!strcmp(verb, "SETEUID")) { /* uid gid */
        seteuid_verb(a);
    } else if (!strcmp(verb, "UMASK")) {   /* mask */
        fprintf(out, "O %d\n", (int)umask((mode_t)num_arg(a[0])));
    } else if (!strcmp(verb, "SETCRED")) { /* uid gid group... : become that user, for good */
        gid_t groups[MAX_ARGS];
        int n = 0;
        for (int i = 2; i < MAX_ARGS && a[i] != NULL; i++)
            groups[n++] = (gid_t)num_arg(a[i]);
        gid_t g = (gid_t)num_arg(a[1]);
        uid_t u = (uid_t)num_arg(a[0]);
        answer_rc(setgroups(n, groups) < 0 || setresgid(g, g, g) < 0 || setresuid(u, u, u) < 0 ? -1 : 0);
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
    int proc = open("/proc", O_RDONLY | O_DIRECTORY);
    if (proc >= 0 && proc != PROC_FD) {
        dup2(proc, PROC_FD);
        close(proc);
    }
    if (chroot(argv[1]) < 0 || chdir("/") < 0 || chmod("/", 01777) < 0) {
        fprintf(out, "X chroot %s: %s\n", argv[1], strerror(errno));
        fflush(out);
        return 1;
    }
    umask(022);
    signal(SIGPIPE, SIG_IGN);
    io_bytes();
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
