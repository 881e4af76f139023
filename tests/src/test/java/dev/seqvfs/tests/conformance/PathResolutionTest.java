package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies path resolution as {@code path_resolution(7)} describes it, through {@code stat},
 * {@code lstat}, {@code open} and {@code mkdir}: ".", "..", repeated and trailing slashes, relative
 * and absolute symlinks anywhere in a path, at most {@code SYMLOOP_MAX} (40) links per walk, {@code
 * NAME_MAX} (255 bytes) and {@code PATH_MAX} (4096 bytes with the NUL), counted in UTF-8 bytes, and
 * search permission on every directory passed through. Limits were checked on the host.
 *
 * <pre>
 * /a/b/c/f       regular file
 * /a/g           regular file
 * /rel  -> a/b        (relative)
 * /abs  -> /a/b/c     (absolute)
 * /a/b/up -> ../g     (relative with ..)
 * /dangling -> /nowhere
 * </pre>
 */
@FileSystemContract
class PathResolutionTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;
    long f;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/a", 0755);
        t.mkdir("/a/b", 0755);
        t.mkdir("/a/b/c", 0755);
        touch(t, "/a/b/c/f");
        touch(t, "/a/g");
        t.symlink("a/b", "/rel");
        t.symlink("/a/b/c", "/abs");
        t.symlink("../g", "/a/b/up");
        t.symlink("/nowhere", "/dangling");
        f = t.stat("/a/b/c/f").ino();
    }

    // ---------------------------------------------------------------- dots and slashes

    @Test
    void resolve_dotComponents_stayInPlace() {
        assertEquals(f, t.stat("/./a/./b/c/./f").ino());
        assertEquals(t.stat("/a").ino(), t.stat("/a/.").ino());
    }

    @Test
    void resolve_dotDotComponents_climbToTheParent() {
        assertEquals(f, t.stat("/a/b/../b/c/../c/f").ino());
        assertEquals(t.stat("/").ino(), t.stat("/a/b/c/../../..").ino());
    }

    @Test
    void resolve_dotDotAtRoot_staysAtRoot() {
        assertEquals(t.stat("/").ino(), t.stat("/../..").ino());
        assertEquals(f, t.stat("/../../a/b/c/f").ino());
        t.chdir("/a");
        assertEquals(t.stat("/").ino(), t.stat("../../../..").ino());
        t.chdir("/");
    }

    @Test
    void resolve_dotDotAfterSymlink_isPhysicalNotLexical() {
        assertEquals(t.stat("/a/b").ino(), t.stat("/abs/..").ino());
        assertEquals(t.stat("/a").ino(), t.stat("/rel/..").ino());
    }

    @Test
    void resolve_repeatedSlashes_actAsOne() {
        assertEquals(f, t.stat("//a///b////c/////f").ino());
        assertEquals(t.stat("/").ino(), t.stat("///").ino());
    }

    @Test
    void resolve_trailingSlashOnDirectory_resolves() {
        assertEquals(t.stat("/a").ino(), t.stat("/a/").ino());
        assertEquals(t.stat("/a").ino(), t.stat("/a//").ino());
        assertEquals(t.stat("/a/b/c").ino(), t.stat("/abs/").ino());
    }

    @Test
    void resolve_trailingSlashOnNonDirectory_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.stat("/a/g/"));
        assertErrno(Errno.ENOTDIR, () -> t.stat("/a/g/."));
        assertErrno(Errno.ENOTDIR, () -> t.stat("/a/g/.."));
        assertErrno(Errno.ENOTDIR, () -> t.lstat("/a/b/up/"));
        assertErrno(Errno.ENOTDIR, () -> t.close(t.open("/a/g/", OpenFlags.O_RDONLY)));
    }

    @Test
    void resolve_nonDirectoryAsMiddleComponent_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.stat("/a/g/x"));
        assertErrno(Errno.ENOTDIR, () -> t.stat("/a/b/up/x"));
    }

    @Test
    void resolve_missingComponent_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.stat("/a/missing/f"));
        assertErrno(Errno.ENOENT, () -> t.stat("/dangling/x"));
        assertErrno(Errno.ENOENT, () -> t.stat("/a/missing/.."));
    }

    @Test
    void resolve_emptyPath_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.stat(""));
        assertErrno(Errno.ENOENT, () -> t.mkdir("", 0755));
        assertErrno(Errno.ENOENT, () -> t.open("", OpenFlags.O_RDONLY));
        assertErrno(Errno.ENOENT, () -> t.mkdirat(999, "", 0755));
    }

    @Test
    void resolve_nulCharacter_failsWithEINVAL() {
        assertErrno(Errno.EINVAL, () -> t.stat("/a\0/g"));
    }

    // ---------------------------------------------------------------- symlinks

    @Test
    void resolve_relativeSymlink_resolvesFromItsDirectory() {
        assertEquals(f, t.stat("/rel/c/f").ino());
        assertEquals(t.stat("/a/g").ino(), t.stat("/a/b/up").ino());
        t.chdir("/a/b/c");
        assertEquals(t.stat("/a/g").ino(), t.stat("../up").ino());
        t.chdir("/");
    }

    @Test
    void resolve_absoluteSymlink_restartsAtRoot() {
        t.chdir("/a/b");
        assertEquals(f, t.stat("../../abs/f").ino());
        assertEquals(f, t.stat("c/../../../abs/f").ino());
        t.chdir("/");
    }

    @Test
    void resolve_symlinkToSymlink_followsBoth() {
        t.symlink("/rel", "/rr");
        t.symlink("rr/c", "/rrc");
        assertEquals(f, t.stat("/rrc/f").ino());
    }

    @Test
    void resolve_symlinkToRootAndDots_work() {
        t.symlink("/", "/root");
        t.symlink(".", "/a/dot");
        t.symlink("..", "/a/b/dotdot");
        assertEquals(f, t.stat("/root/root/a/b/c/f").ino());
        assertEquals(t.stat("/a").ino(), t.stat("/a/dot/dot/dot").ino());
        assertEquals(t.stat("/a").ino(), t.stat("/a/b/dotdot").ino());
    }

    @Test
    void resolve_fortySymlinksInAChain_succeed() {
        chain("/c40", 40, "/a/b/c/f");
        assertEquals(f, t.stat("/c40/l1").ino());
    }

    @Test
    void resolve_fortyOneSymlinksInAChain_failWithELOOP() {
        chain("/c41", 41, "/a/b/c/f");
        assertErrno(Errno.ELOOP, () -> t.stat("/c41/l1"));
        assertEquals("l2", t.readlink("/c41/l1"));
    }

    @Test
    void resolve_symlinkLimitCountsLinksInEveryComponent() {
        chain("/m", 39, "/a/b/c");
        assertEquals(f, t.stat("/m/l1/f").ino());
        t.symlink("/m/l1/f", "/one");
        assertEquals(f, t.stat("/one").ino());
        t.symlink("/one", "/two");
        assertErrno(Errno.ELOOP, () -> t.stat("/two"));
    }

    private void chain(String dir, int n, String target) {
        t.mkdir(dir, 0755);
        for (int i = 1; i <= n; i++) {
            t.symlink(i < n ? "l" + (i + 1) : target, dir + "/l" + i);
        }
    }

    @Test
    void resolve_symlinkLoop_failsWithELOOP() {
        t.symlink("/y", "/x");
        t.symlink("/x", "/y");
        t.symlink("self", "/self");
        assertErrno(Errno.ELOOP, () -> t.stat("/x"));
        assertErrno(Errno.ELOOP, () -> t.stat("/self/z"));
    }

    @Test
    void resolve_noFollowOnFinalSymlink_failsWithELOOPButFollowsEarlierOnes() {
        assertErrno(Errno.ELOOP, () -> t.open("/abs", OpenFlags.O_RDONLY | OpenFlags.O_NOFOLLOW));
        int fd = t.open("/abs/f", OpenFlags.O_RDONLY | OpenFlags.O_NOFOLLOW);
        t.close(fd);
    }

    @Test
    void resolve_lstat_doesNotFollowFinalButFollowsEarlier() {
        assertTrue(t.lstat("/rel").isSymlink());
        assertTrue(t.lstat("/rel/up").isSymlink());
        assertTrue(t.lstat("/rel/c").isDirectory());
    }

    // ---------------------------------------------------------------- limits

    @Test
    void resolve_nameOf255Bytes_worksAnd256Fails() {
        t.mkdir("/a/" + "n".repeat(Limits.NAME_MAX), 0755);
        assertTrue(t.stat("/a/" + "n".repeat(255)).isDirectory());
        assertErrno(Errno.ENAMETOOLONG, () -> t.mkdir("/a/" + "n".repeat(256), 0755));
        assertErrno(Errno.ENAMETOOLONG, () -> t.stat("/a/" + "n".repeat(256)));
    }

    @Test
    void resolve_nameLimitCountsUtf8BytesNotCharacters() {
        String ok = "é".repeat(127) + "a";
        String tooLong = "é".repeat(128);
        assertEquals(255, ok.getBytes(StandardCharsets.UTF_8).length);
        touch(t, "/a/" + ok);
        assertTrue(t.stat("/a/" + ok).isRegular());
        assertErrno(Errno.ENAMETOOLONG, () -> touch(t, "/a/" + tooLong));
        assertErrno(Errno.ENAMETOOLONG, () -> t.mkdir("/a/" + "€".repeat(86), 0755));
        t.mkdir("/a/" + "€".repeat(85), 0755);
    }

    @Test
    void resolve_pathOf4095Bytes_worksAnd4096Fails() {
        assertEquals(f, t.stat(padded(4095, "/a/b/c/f")).ino());
        assertErrno(Errno.ENAMETOOLONG, () -> t.stat(padded(4096, "/a/b/c/f")));
        assertErrno(Errno.ENAMETOOLONG, () -> t.mkdir(padded(4096, "/a/new"), 0755));
    }

    @Test
    void resolve_pathLimitCountsUtf8Bytes() {
        String name = "é".repeat(100);
        t.mkdir("/a/" + name, 0755);
        StringBuilder sb = new StringBuilder("/a");
        while (sb.toString().getBytes(StandardCharsets.UTF_8).length < 4096) {
            sb.append('/').append(name).append("/..");
        }
        String p = sb.toString();
        assertTrue(p.length() < 4096 && p.getBytes(StandardCharsets.UTF_8).length >= 4096);
        assertErrno(Errno.ENAMETOOLONG, () -> t.stat(p));
    }

    /**
     * Returns a path of exactly {@code bytes} bytes naming {@code target}: "./" steps after the
     * first slash.
     */
    private static String padded(int bytes, String target) {
        int prefix = bytes - target.length() + 1;
        StringBuilder sb = new StringBuilder("/");
        while (sb.length() + 2 <= prefix) {
            sb.append("./");
        }
        if (sb.length() < prefix) {
            sb.append('/');
        }
        String p = sb + target.substring(1);
        assertEquals(bytes, p.length());
        return p;
    }

    // ---------------------------------------------------------------- permissions

    @Test
    void resolve_missingSearchPermissionOnAnyComponent_failsWithEACCES() {
        VfsTask u = fs.task(1000, 1000);
        assertEquals(f, u.stat("/a/b/c/f").ino());
        t.chmod("/a/b", 0666);
        assertErrno(Errno.EACCES, () -> u.stat("/a/b/c/f"));
        assertErrno(Errno.EACCES, () -> u.stat("/a/b/c"));
        assertErrno(Errno.EACCES, () -> u.lstat("/a/b/up"));
        assertEquals(t.stat("/a/b").ino(), u.stat("/a/b").ino());
    }

    @Test
    void resolve_missingSearchPermissionThroughSymlink_failsWithEACCES() {
        t.chmod("/a/b", 0700);
        VfsTask u = fs.task(1000, 1000);
        assertErrno(Errno.EACCES, () -> u.stat("/abs"));
        assertErrno(Errno.EACCES, () -> u.stat("/rel/c"));
    }

    @Test
    void resolve_dotDotNeedsSearchPermissionOnTheDirectoryLeft() {
        t.chmod("/a/b", 0600);
        VfsTask u = fs.task(1000, 1000);
        assertErrno(Errno.EACCES, () -> u.stat("/a/b/.."));
        assertErrno(Errno.EACCES, () -> u.stat("/a/b/."));
    }

    @Test
    void resolve_searchPermissionFromGroupClass_allowsGroupMembersOnly() {
        t.chmod("/a", 0710);
        t.chown("/a", 0, 50);
        assertEquals(f, fs.task(1000, 50).stat("/a/b/c/f").ino());
        assertEquals(f, fs.task(1000, 1, 50).stat("/a/b/c/f").ino());
        assertErrno(Errno.EACCES, () -> fs.task(1000, 1).stat("/a/b/c/f"));
    }

    @Test
    void resolve_rootNeedsNoSearchPermission() {
        t.chmod("/a", 0);
        t.chmod("/a/b", 0);
        assertEquals(f, t.stat("/a/b/c/f").ino());
    }
}
