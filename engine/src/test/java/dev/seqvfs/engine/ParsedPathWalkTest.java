package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link Filename} walked again reads its components parsed ahead ({@link Filename#components()})
 * and takes the walk's tight loop for plain directories; it must answer every call exactly as a
 * path walked by scanning its chars does. Random paths over a tree with relative, absolute,
 * dangling and looping links, a link to a file, a mount, a directory the user may not search, a
 * name over 16 bytes, one over {@code NAME_MAX}, a non-ASCII name, {@code "."}, {@code ".."},
 * doubled and trailing slashes; as root and as a user; for {@code stat}, {@code lstat}, {@code
 * open} and {@code mkdir} (a parent walk). Ends with fsck clean.
 */
class ParsedPathWalkTest {
    private static final List<String> NAMES =
            List.of(
                    "a",
                    "b",
                    "c",
                    "f",
                    "l1",
                    "l2",
                    "dang",
                    "loop",
                    "fl",
                    "m",
                    "x",
                    "p",
                    ".",
                    "..",
                    "nosuch",
                    "name-longer-than-sixteen",
                    "n".repeat(256),
                    "\u00e9t\u00e9");

    SeqVfs vfs;
    VfsTask root;
    VfsTask user;

    @BeforeEach
    void up() {
        vfs = SeqVfs.create();
        root = vfs.newTask(Credentials.ROOT);
        user = vfs.newTask(Credentials.of(1000, 1000));
        root.mkdir("/a", 0755);
        root.mkdir("/a/b", 0755);
        root.mkdir("/a/b/c", 0755);
        root.mknod("/a/b/c/f", 0100644, 0);
        root.mkdir("/a/b/name-longer-than-sixteen", 0755);
        root.mkdir("/a/b/name-longer-than-sixteen/\u00e9t\u00e9", 0755);
        root.symlink("b", "/a/l1");
        root.symlink("/a/b/c", "/a/l2");
        root.symlink("nowhere", "/a/dang");
        root.symlink("loop", "/a/loop");
        root.symlink("b/c/f", "/a/fl");
        root.symlink("/m", "/a/b/m");
        root.mkdir("/m", 0755);
        root.mount(null, "/m", "tmpfs", 0, null);
        root.mkdir("/m/x", 0777);
        root.symlink("../a", "/m/x/a");
        root.mkdir("/p", 0700);
        root.mkdir("/p/x", 0755);
        root.mkdir("/p/x/a", 0755);
    }

    @AfterEach
    void down() {
        root.umount("/m");
        user.close();
        root.close();
        assertEquals(List.of(), Fsck.check(vfs, true));
        vfs.close();
    }

    @Test
    void filenameWalkedAgain_answersAsAFreshPath() {
        Random rnd = new Random(20261207);
        for (int i = 0; i < 4000; i++) {
            String path = randomPath(rnd);
            for (VfsTask t : new VfsTask[] {root, user}) {
                check(path, p -> t.stat(p).ino());
                check(path, p -> t.lstat(p).ino());
                check(
                        path,
                        p -> {
                            int fd = t.open(p, OpenFlags.O_RDONLY);
                            long ino = t.fstat(fd).ino();
                            t.close(fd);
                            return ino;
                        });
                check(
                        path,
                        p -> {
                            // a new inode each time: the answer is only whether it was made
                            t.mkdir(p, 0755);
                            root.rmdir(p.toString());
                            return 1L;
                        });
            }
        }
    }

    @Test
    void components_areParsedOnTheSecondAsk() {
        Filename f = Filename.of("/a/b");
        assertNull(f.components());
        assertNotNull(f.components());
        assertEquals(2, f.components().count());
    }

    /** Compares {@code call} on a fresh path with {@code call} on a Filename parsed ahead. */
    private static void check(String path, Function<CharSequence, Long> call) {
        String fresh = outcome(call, path);
        Filename f = Filename.of(path);
        f.components();
        assertNotNull(f.components(), path);
        assertEquals(fresh, outcome(call, f), path);
    }

    private static String outcome(Function<CharSequence, Long> call, CharSequence path) {
        try {
            return "ok " + call.apply(path);
        } catch (VfsException e) {
            return e.errno().name();
        }
    }

    private static String randomPath(Random rnd) {
        StringBuilder sb = new StringBuilder();
        if (rnd.nextInt(5) != 0) {
            sb.append('/');
        }
        int n = 1 + rnd.nextInt(6);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                sb.append(rnd.nextInt(6) == 0 ? "//" : "/");
            }
            // mostly names that exist along the tree, so that walks go deep
            int k = rnd.nextInt(3) == 0 ? rnd.nextInt(NAMES.size()) : rnd.nextInt(12);
            sb.append(NAMES.get(k));
        }
        if (rnd.nextInt(5) == 0) {
            sb.append('/');
        }
        return sb.toString();
    }
}
