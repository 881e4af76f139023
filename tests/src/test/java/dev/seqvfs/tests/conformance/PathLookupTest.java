package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies the path walk's component lookups ({@code path_resolution(7)}): a component is looked
 * up by its exact bytes wherever it sits in the path, so names whose Java hash codes collide
 * ({@code "AaAa"}, {@code "BBBB"}, {@code "AaBB"}, {@code "BBAa"}), names that are prefixes of one
 * another, non-ASCII names and surrogateescape-encoded bytes each lead to their own inode, with
 * {@code "."}, {@code ".."}, repeated and trailing slashes around them. The results are what Linux
 * gives for the same tree.
 *
 * <pre>
 * /AaAa/BBBB/f      regular file   (AaAa, BBBB, AaBB and BBAa all have one hashCode)
 * /AaAa/AaBB/f      regular file
 * /BBBB/            directory
 * /ab/abc/abcd      regular file
 * /\u00e9t\u00e9/caf\u00e9       regular file   (UTF-8 names)
 * /raw\udcff/x      regular file   (byte 0xff, not valid UTF-8: surrogateescape)
 * </pre>
 */
@FileSystemContract
class PathLookupTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/AaAa", 0755);
        t.mkdir("/AaAa/BBBB", 0755);
        t.mkdir("/AaAa/AaBB", 0755);
        touch(t, "/AaAa/BBBB/f");
        touch(t, "/AaAa/AaBB/f");
        t.mkdir("/BBBB", 0755);
        t.mkdir("/ab", 0755);
        t.mkdir("/ab/abc", 0755);
        touch(t, "/ab/abc/abcd");
        t.mkdir("/\u00e9t\u00e9", 0755);
        touch(t, "/\u00e9t\u00e9/caf\u00e9");
        t.mkdir("/raw\udcff", 0755);
        touch(t, "/raw\udcff/x");
    }

    @Test
    void stat_namesWithEqualHashCodes_eachResolvesToItsOwnInode() {
        assertEquals("AaAa".hashCode(), "BBBB".hashCode());
        long a = t.stat("/AaAa").ino();
        long b = t.stat("/BBBB").ino();
        assertNotEquals(a, b);
        assertNotEquals(t.stat("/AaAa/BBBB/f").ino(), t.stat("/AaAa/AaBB/f").ino());
        assertEquals(a, t.stat("/AaAa/BBBB/..").ino());
        assertErrno(Errno.ENOTDIR, () -> t.stat("/AaAa/BBBB/f/.."));
    }

    @Test
    void stat_collidingNameNotInDirectory_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.stat("/AaAa/BBAa"));
        assertErrno(Errno.ENOENT, () -> t.stat("/BBBB/AaAa"));
        assertErrno(Errno.ENOENT, () -> t.stat("/AaBB/BBBB/f"));
    }

    @Test
    void stat_collidingNamesWithDotsAndSlashes_resolveByBytes() {
        long f = t.stat("/AaAa/BBBB/f").ino();
        assertEquals(f, t.stat("//AaAa///BBBB//f").ino());
        assertEquals(f, t.stat("/./AaAa/./BBBB/./f").ino());
        assertEquals(f, t.stat("/AaAa/AaBB/../BBBB/f").ino());
        assertEquals(f, t.stat("/BBBB/../AaAa/BBBB/f").ino());
        assertEquals(t.stat("/AaAa/BBBB").ino(), t.stat("/AaAa/BBBB/").ino());
        assertEquals(t.stat("/AaAa/BBBB").ino(), t.stat("/AaAa/BBBB//.//").ino());
        assertErrno(Errno.ENOTDIR, () -> t.stat("/AaAa/BBBB/f/"));
    }

    @Test
    void stat_removedCollidingName_otherNamesStillResolve() {
        t.unlink("/AaAa/BBBB/f");
        t.rmdir("/AaAa/BBBB");
        assertErrno(Errno.ENOENT, () -> t.stat("/AaAa/BBBB/f"));
        assertErrno(Errno.ENOENT, () -> t.stat("/AaAa/BBBB"));
        t.stat("/AaAa/AaBB/f");
        t.rename("/AaAa/AaBB", "/AaAa/BBAa");
        assertErrno(Errno.ENOENT, () -> t.stat("/AaAa/AaBB/f"));
        t.stat("/AaAa/BBAa/f");
    }

    @Test
    void stat_prefixesOfNames_areDistinctComponents() {
        t.stat("/ab/abc/abcd");
        assertErrno(Errno.ENOENT, () -> t.stat("/ab/abcd"));
        assertErrno(Errno.ENOENT, () -> t.stat("/abc"));
        assertErrno(Errno.ENOENT, () -> t.stat("/ab/ab"));
        assertErrno(Errno.ENOENT, () -> t.stat("/ab/abc/abc"));
        assertErrno(Errno.ENOENT, () -> t.stat("/a/abc"));
    }

    @Test
    void stat_nonAsciiAndSurrogateescapeNames_resolveByTheirBytes() {
        long f = t.stat("/\u00e9t\u00e9/caf\u00e9").ino();
        byte[] raw = "/\u00e9t\u00e9/caf\u00e9".getBytes(StandardCharsets.UTF_8);
        assertEquals(f, t.stat(Filename.of(raw)).ino());
        assertEquals(f, t.stat("/\u00e9t\u00e9//./caf\u00e9").ino());
        // "e" + U+0301 is another byte sequence: no normalisation
        assertErrno(Errno.ENOENT, () -> t.stat("/e\u0301t\u00e9/caf\u00e9"));
        long x = t.stat("/raw\udcff/x").ino();
        assertEquals(
                x,
                t.stat(Filename.of(new byte[] {'/', 'r', 'a', 'w', (byte) 0xff, '/', 'x'})).ino());
        // byte 0xff is not U+00FF (UTF-8 c3 bf)
        assertErrno(Errno.ENOENT, () -> t.stat("/raw\u00ff/x"));
        assertEquals(t.stat("/").ino(), t.stat("/raw\udcff/..").ino());
    }

    @Test
    void stat_relativePathsFromCollidingDirectory_resolve() {
        t.chdir("/AaAa/BBBB");
        assertEquals(t.stat("/AaAa/BBBB/f").ino(), t.stat("f").ino());
        assertEquals(t.stat("/AaAa/AaBB/f").ino(), t.stat("../AaBB/f").ino());
        assertErrno(Errno.ENOENT, () -> t.stat("AaBB"));
    }
}
