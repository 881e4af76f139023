package dev.seqvfs.tests.differential;

import static dev.seqvfs.protocol.Mode.*;
import static dev.seqvfs.protocol.OpenFlags.*;
import static dev.seqvfs.tests.differential.Op.*;

import java.util.List;
import net.jqwik.api.Example;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Shrunk sequences on which SeqVFS once disagreed with the host kernel, each replayed against both
 * (every result and the final tree must be equal). One example per distinct mismatch, named after
 * the case; the comment says what SeqVFS did wrong and which kernel rule decides it. The kernel is
 * the reference ({@code path_resolution(7)} and the section-2 page of the call).
 *
 * <p>To add a case, paste the sequence a failing {@link DifferentialPropertyTest} prints (it is
 * Java over these static imports) into {@code replay(...)}.
 */
@AddLifecycleHook(HostKernelHooks.class)
class DifferentialRegressionTest {

    private static void replay(Op... ops) {
        Differential.check(List.of(ops));
    }

    /**
     * SeqVFS said EBADF: getname() rejects an empty path (ENOENT) before the dirfd is looked up.
     */
    @Example
    void mkdirat_emptyPathAndClosedDirfd_matchesHost() {
        replay(mkdirat(0, "", 0755), mkdirat(AT_FDCWD, "", 0755));
    }

    /**
     * {@code O_TMPFILE} (SeqVFS said EOPNOTSUPP): a nameless file of link count 0 that {@code
     * linkat(AT_EMPTY_PATH)} names, one opened with {@code O_EXCL} that cannot be linked ({@code
     * ENOENT}), the refusals of a read-only access mode and of {@code O_CREAT} ({@code EINVAL}), of
     * a non-directory ({@code ENOTDIR}) and of a missing one ({@code ENOENT}), and a nameless file
     * dropped at its close; as on the host's tmpfs.
     */
    @Example
    void open_tmpfile_matchesHost() {
        replay(
                mkdir("d", 0755),
                open("d", O_TMPFILE | O_RDWR, 0640),
                fstat(0),
                linkat(0, "", AT_FDCWD, "d/named", AT_EMPTY_PATH),
                fstat(0),
                stat("d/named"),
                linkat(0, "", AT_FDCWD, "d/again", AT_EMPTY_PATH),
                stat("d/named"),
                open("d", O_TMPFILE | O_RDWR | O_EXCL, 0600),
                fstat(1),
                linkat(1, "", AT_FDCWD, "d/n2", AT_EMPTY_PATH),
                open("d", O_TMPFILE | O_WRONLY, 07777),
                fstat(2),
                close(2),
                open("d", O_TMPFILE | O_RDONLY, 0600),
                open("d", O_TMPFILE | O_RDWR | O_CREAT, 0600),
                open("d/named", O_TMPFILE | O_RDWR, 0600),
                open("missing", O_TMPFILE | O_RDWR, 0600),
                getdents(0),
                close(0),
                close(1));
    }

    /**
     * SeqVFS said EBADF: getname() rejects a path of PATH_MAX bytes (ENAMETOOLONG) before the
     * dirfd.
     */
    @Example
    void openat_overlongPathAndClosedDirfd_matchesHost() {
        replay(openat(0, OpArbitraries.TOO_LONG_PATH, O_RDONLY, 0));
    }

    /**
     * SeqVFS said EINVAL: access mode 3 is Linux's "check read and write permission, allow neither"
     * (open(2)); it opens files and fails on a directory with EISDIR.
     */
    @Example
    void open_accessModeThree_matchesHost() {
        replay(
                open("a", O_ACCMODE, 0644),
                open("a", O_ACCMODE | O_CREAT, 0644),
                fstat(0),
                getdents(0),
                open("a", O_ACCMODE | O_TRUNC, 0),
                mkdir("d", 0755),
                open("d", O_ACCMODE, 0),
                close(0),
                close(1));
    }

    /**
     * SeqVFS said ENOENT: utimensat with both times UTIME_OMIT returns 0 before it checks flags or
     * path.
     */
    @Example
    void utimensat_bothOmitOnMissingPathAndBadFlags_matchesHost() {
        replay(
                utimensat(AT_FDCWD, "a", TIMES_OMIT, 0),
                utimensat(99, "a", TIMES_OMIT, AT_REMOVEDIR));
    }

    /**
     * SeqVFS said ENAMETOOLONG for every over-long final component at once; Linux finds it only in
     * the file system's lookup, so earlier checks win: EISDIR for open(O_CREAT) with a trailing
     * slash, ENOENT for a missing rename source before the over-long target.
     */
    @Example
    void open_overlongFinalNameWithTrailingSlashAndCreate_matchesHost() {
        String tooLong = OpArbitraries.TOO_LONG_NAME;
        replay(
                open(tooLong + "/", O_RDONLY | O_CREAT, 0644),
                open(tooLong, O_RDONLY | O_CREAT, 0644),
                rename("missing", tooLong),
                rename(tooLong, "b"),
                mkdir("a", 0755),
                rename("a", tooLong),
                unlink(tooLong + "/"),
                rmdir(tooLong),
                stat(tooLong + "/a"),
                mkdir(tooLong + "/", 0755));
    }

    /**
     * SeqVFS said EINVAL: Linux checks tv_nsec in vfs_utimes, after the path walk (ENOENT first).
     */
    @Example
    void utimensat_badNanosecondsOnMissingPath_matchesHost() {
        replay(
                utimensat(AT_FDCWD, "a", TIMES_BAD_NSEC, 0),
                mkdir("a", 0755),
                utimensat(AT_FDCWD, "a", TIMES_BAD_NSEC, 0));
    }

    /**
     * SeqVFS said EINVAL: readlink of an empty path that names a non-link (the working directory, a
     * directory fd) is ENOENT in do_readlinkat; on an O_PATH link fd it reads the link.
     */
    @Example
    void readlink_emptyPathOnDirectoryOrLinkFd_matchesHost() {
        replay(
                readlink(""),
                open(".", O_RDONLY, 0),
                readlinkat(0, ""),
                symlink("target", "l"),
                open("l", O_PATH | O_NOFOLLOW, 0),
                readlinkat(1, ""),
                close(0),
                close(1));
    }

    /**
     * SeqVFS said EISDIR: open("/", "." or "..", O_CREAT | O_EXCL) finds an existing directory, so
     * EEXIST.
     */
    @Example
    void open_createExclusiveOnRootDotAndDotDot_matchesHost() {
        replay(
                open("/", O_RDONLY | O_CREAT | O_EXCL, 0644),
                open(".", O_RDONLY | O_CREAT | O_EXCL, 0644),
                open("..", O_RDONLY | O_CREAT | O_EXCL, 0644),
                open("..", O_RDONLY | O_CREAT, 0644),
                open("a/", O_RDONLY | O_CREAT | O_EXCL, 0644));
    }

    /**
     * SeqVFS did not follow the link a trailing slash leads into: link("a/", "b") with a -> a said
     * EEXIST instead of ELOOP, and "l/" with l -> file found the file instead of ENOTDIR. In Linux
     * (lookup_last) a trailing slash turns on LOOKUP_FOLLOW | LOOKUP_DIRECTORY for the rest of the
     * walk, link bodies included.
     */
    @Example
    void link_trailingSlashThroughSelfLoopAndLinkToFile_matchesHost() {
        replay(
                symlink("a", "a"),
                link("a/", "a"),
                link("a/", "b"),
                open("f", O_RDONLY | O_CREAT, 0644),
                close(0),
                symlink("f", "l"),
                stat("l/"),
                lstat("l/"),
                link("l/", "x"),
                symlink("l", "ll"),
                lstat("ll/"),
                open("ll/", O_RDONLY, 0));
    }

    /**
     * SeqVFS opened it: a socket inode made by mknod cannot be opened (ENXIO), except with O_PATH.
     */
    @Example
    void open_socketInode_matchesHost() {
        replay(
                mknod("s", S_IFSOCK | 0644),
                open("s", O_RDONLY, 0),
                open("s", O_RDWR | O_CREAT, 0644),
                open("s", O_PATH, 0),
                fstat(0),
                close(0));
    }

    /**
     * SeqVFS said ENAMETOOLONG: in a removed directory Linux's lookup says ENOENT before it looks
     * at the name (__lookup_slow), for a middle component, a final one, and a create.
     */
    @Example
    void openat_overlongNameInRemovedDirectory_matchesHost() {
        String tooLong = OpArbitraries.TOO_LONG_NAME;
        replay(
                mkdir("a", 0755),
                open("a", O_RDONLY, 0),
                chdir("a"),
                rmdir("/a"),
                openat(0, tooLong, O_RDONLY, 0),
                stat(tooLong + "/b"),
                mkdir(tooLong, 0755),
                open(tooLong, O_RDONLY | O_CREAT, 0644),
                unlink(tooLong),
                rename(tooLong, "b"),
                rename("b", tooLong),
                close(0));
    }

    /** SeqVFS said EIO: a cross-directory rename out of a removed directory is ENOENT. */
    @Example
    void renameat2_overlongNameOutOfRemovedDirectory_matchesHost() {
        String tooLong = OpArbitraries.TOO_LONG_NAME;
        replay(
                mkdir("a", 0755),
                open("a", O_RDONLY, 0),
                rmdir("a"),
                renameat2(0, tooLong, AT_FDCWD, "/" + tooLong, 0),
                renameat2(0, "x", AT_FDCWD, "/y", 0),
                mkdir("b", 0755),
                renameat2(AT_FDCWD, "b", 0, "b", 0),
                close(0));
    }

    /**
     * SeqVFS said ELOOP: open(O_CREAT) of an existing symlink owned by another user in a sticky
     * world-writable directory is EACCES even for root (may_create_in_sticky), checked before
     * O_NOFOLLOW's ELOOP.
     */
    @Example
    void openCreatNofollow_foreignSymlinkInStickyRoot_matchesHost() {
        replay(
                symlink("a", "a"),
                lchown("a", 1000, 0),
                open("./a", O_RDWR | O_CREAT | O_NOFOLLOW, 07777),
                open("./a", O_RDWR | O_NOFOLLOW, 0),
                open("./a", O_RDWR | O_CREAT, 0644));
    }
}
