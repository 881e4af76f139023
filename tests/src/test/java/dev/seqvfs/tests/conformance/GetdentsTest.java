package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.namesOf;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code getdents64(2)} with {@code lseek(2)} on directories ({@code telldir}/{@code
 * seekdir}): "." and ".." first, inode numbers and {@code d_type}, chunked reads, cookies that stay
 * valid while the directory changes between calls (every name present throughout appears exactly
 * once), resuming from a saved cookie, and the errnos that apply: EBADF (also on {@code O_PATH}),
 * EINVAL (buffer too small, bad {@code lseek}), ENOENT (directory removed), ENOTDIR.
 *
 * <pre>
 * /d/              0755
 * /d/n000../n099   regular files (in some tests)
 * </pre>
 */
@FileSystemContract
class GetdentsTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;
    int fd = -1;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/d", 0755);
    }

    private int openDir(String path) {
        fd = t.open(path, OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        return fd;
    }

    @org.junit.jupiter.api.AfterEach
    void closeDir() {
        if (fd >= 0) {
            t.close(fd);
        }
    }

    private void populate(int n) {
        for (int i = 0; i < n; i++) {
            touch(t, String.format("/d/n%03d", i));
        }
    }

    private List<DirEntry> readAll(int fd, int chunk) {
        List<DirEntry> out = new ArrayList<>();
        while (true) {
            List<DirEntry> c = t.getdents(fd, chunk);
            if (c.isEmpty()) {
                return out;
            }
            out.addAll(c);
        }
    }

    @Test
    void getdents_emptyDirectory_returnsDotAndDotDotThenNothing() {
        int fd = openDir("/d");
        List<DirEntry> es = t.getdents(fd, 100);
        assertEquals(List.of(".", ".."), namesOf(es));
        assertEquals(t.stat("/d").ino(), es.get(0).ino());
        assertEquals(t.stat("/").ino(), es.get(1).ino());
        assertEquals(FileType.DIRECTORY, es.get(0).type());
        assertEquals(FileType.DIRECTORY, es.get(1).type());
        assertEquals(List.of(), t.getdents(fd, 100));
        assertEquals(List.of(), t.getdents(fd, 100));
    }

    @Test
    void getdents_rootDirectory_dotDotIsRootItself() {
        int fd = openDir("/");
        List<DirEntry> es = t.getdents(fd, 2);
        assertEquals(es.get(0).ino(), es.get(1).ino());
        assertEquals(t.stat("/").ino(), es.get(1).ino());
    }

    @Test
    void getdents_rootOfMountedFileSystem_dotDotIsItsOwnRoot() {
        t.mkdir("/d/m", 0755);
        t.mount("none", "/d/m", "tmpfs", 0, null);
        int fd = openDir("/d/m");
        List<DirEntry> es = t.getdents(fd, 2);
        assertEquals(t.stat("/d/m").ino(), es.get(0).ino());
        assertEquals(es.get(0).ino(), es.get(1).ino());
        t.close(fd);
        this.fd = -1;
        t.umount("/d/m");
    }

    @Test
    void getdents_entries_reportInodeAndType() {
        touch(t, "/d/reg");
        t.mkdir("/d/dir", 0755);
        t.symlink("x", "/d/lnk");
        t.mknod("/d/fifo", Mode.S_IFIFO | 0644, 0);
        t.mknod("/d/sock", Mode.S_IFSOCK | 0644, 0);
        t.mknod("/d/chr", Mode.S_IFCHR | 0644, 0x0101);
        t.mknod("/d/blk", Mode.S_IFBLK | 0644, 0x0802);
        Map<String, DirEntry> by = new HashMap<>();
        for (DirEntry e : readAll(openDir("/d"), 100)) {
            by.put(e.name(), e);
        }
        assertEquals(
                Set.of(".", "..", "reg", "dir", "lnk", "fifo", "sock", "chr", "blk"), by.keySet());
        assertEquals(FileType.REGULAR, by.get("reg").type());
        assertEquals(FileType.DIRECTORY, by.get("dir").type());
        assertEquals(FileType.SYMLINK, by.get("lnk").type());
        assertEquals(FileType.FIFO, by.get("fifo").type());
        assertEquals(FileType.SOCKET, by.get("sock").type());
        assertEquals(FileType.CHAR_DEVICE, by.get("chr").type());
        assertEquals(FileType.BLOCK_DEVICE, by.get("blk").type());
        for (String n : List.of("reg", "dir", "fifo")) {
            assertEquals(t.lstat("/d/" + n).ino(), by.get(n).ino());
        }
        assertEquals(t.lstat("/d/lnk").ino(), by.get("lnk").ino());
    }

    @Test
    void getdents_hardLinks_listedUnderEachNameWithSameInode() {
        touch(t, "/d/a");
        t.link("/d/a", "/d/b");
        List<DirEntry> es = readAll(openDir("/d"), 100);
        assertEquals(4, es.size());
        assertEquals(es.get(2).ino(), es.get(3).ino());
    }

    @Test
    void getdents_smallChunks_returnEveryNameOnceWithIncreasingCookies() {
        populate(50);
        List<DirEntry> es = readAll(openDir("/d"), 3);
        assertEquals(52, es.size());
        assertEquals(List.of(".", ".."), namesOf(es.subList(0, 2)));
        Set<String> names = new HashSet<>(namesOf(es));
        assertEquals(52, names.size());
        for (int i = 1; i < es.size(); i++) {
            assertTrue(es.get(i).cookie() > es.get(i - 1).cookie());
        }
    }

    @Test
    void getdents_changesBetweenCalls_untouchedNamesAppearExactlyOnce() {
        populate(100);
        int fd = openDir("/d");
        List<DirEntry> seen = new ArrayList<>();
        seen.addAll(t.getdents(fd, 32));
        Set<String> listed = new HashSet<>(namesOf(seen));
        Set<String> touched = new HashSet<>();
        int removedListed = 0;
        for (int i = 0; i < 100; i += 7) {
            String n = String.format("n%03d", i);
            touched.add(n);
            if (listed.contains(n)) {
                removedListed++;
            }
            t.unlink("/d/" + n);
        }
        for (int i = 3; i < 100; i += 11) {
            String n = String.format("n%03d", i);
            if (touched.add(n)) {
                t.rename("/d/" + n, "/d/r" + n);
                touched.add("r" + n);
            }
        }
        for (int i = 0; i < 40; i++) {
            touch(t, "/d/new" + i);
            touched.add("new" + i);
        }
        while (true) {
            List<DirEntry> c = t.getdents(fd, 9);
            if (c.isEmpty()) {
                break;
            }
            seen.addAll(c);
            t.unlink("/d/new" + (seen.size() % 40));
        }
        Map<String, Integer> count = new HashMap<>();
        for (DirEntry e : seen) {
            count.merge(e.name(), 1, Integer::sum);
        }
        for (int i = 0; i < 100; i++) {
            String n = String.format("n%03d", i);
            if (!touched.contains(n)) {
                assertEquals(1, count.getOrDefault(n, 0), n);
            }
        }
        count.forEach((n, c) -> assertEquals(1, c, "listed twice: " + n));
        assertTrue(removedListed > 0);
    }

    @Test
    void getdents_entryRenamedAfterBeingListed_isNotListedAgainUnderOldName() {
        populate(10);
        int fd = openDir("/d");
        List<DirEntry> first = t.getdents(fd, 5);
        t.rename("/d/n009", "/d/z");
        List<DirEntry> rest = readAll(fd, 100);
        List<String> all = new ArrayList<>(namesOf(first));
        all.addAll(namesOf(rest));
        assertEquals(new HashSet<>(all).size(), all.size());
        for (int i = 0; i < 9; i++) {
            assertTrue(all.contains(String.format("n%03d", i)));
        }
    }

    @Test
    void lseek_savedCookie_resumesListingAtTheSamePlace() {
        populate(20);
        int fd = openDir("/d");
        t.getdents(fd, 7);
        long cookie = t.lseek(fd, 0, VfsTask.SEEK_CUR);
        List<String> after = namesOf(t.getdents(fd, 5));
        assertEquals(cookie, t.lseek(fd, cookie, VfsTask.SEEK_SET));
        assertEquals(after, namesOf(t.getdents(fd, 5)));
    }

    @Test
    void lseek_entryCookie_resumesAfterThatEntry() {
        populate(10);
        int fd = openDir("/d");
        List<DirEntry> es = readAll(fd, 100);
        t.lseek(fd, es.get(4).cookie(), VfsTask.SEEK_SET);
        assertEquals(namesOf(es.subList(5, 8)), namesOf(t.getdents(fd, 3)));
    }

    @Test
    void lseek_savedCookieAfterRemovalOfNextEntry_resumesWithTheOneAfter() {
        populate(10);
        int fd = openDir("/d");
        List<DirEntry> es = readAll(fd, 100);
        t.unlink("/d/" + es.get(5).name());
        t.lseek(fd, es.get(4).cookie(), VfsTask.SEEK_SET);
        assertEquals(es.get(6).name(), t.getdents(fd, 1).get(0).name());
    }

    @Test
    void lseek_toZero_rewindsToDot() {
        populate(3);
        int fd = openDir("/d");
        readAll(fd, 100);
        assertEquals(0, t.lseek(fd, 0, VfsTask.SEEK_SET));
        assertEquals(".", t.getdents(fd, 1).get(0).name());
    }

    @Test
    void lseek_directoryFromEnd_failsWithEINVAL() {
        int fd = openDir("/d");
        assertErrno(Errno.EINVAL, () -> t.lseek(fd, 0, VfsTask.SEEK_END));
    }

    @Test
    void lseek_negativeResultOrBadWhence_failsWithEINVAL() {
        int fd = openDir("/d");
        assertErrno(Errno.EINVAL, () -> t.lseek(fd, -1, VfsTask.SEEK_SET));
        assertErrno(Errno.EINVAL, () -> t.lseek(fd, -1, VfsTask.SEEK_CUR));
        assertErrno(Errno.EINVAL, () -> t.lseek(fd, 0, 7));
    }

    @Test
    void lseek_badOrPathDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.lseek(77, 0, VfsTask.SEEK_SET));
        fd = t.open("/d", OpenFlags.O_PATH);
        assertErrno(Errno.EBADF, () -> t.lseek(fd, 0, VfsTask.SEEK_SET));
    }

    @Test
    void getdents_removedDirectory_failsWithENOENT() {
        int fd = openDir("/d");
        t.rmdir("/d");
        assertErrno(Errno.ENOENT, () -> t.getdents(fd, 10));
    }

    @Test
    void getdents_directoryReplacedByRename_failsWithENOENT() {
        t.mkdir("/e", 0755);
        int fd = openDir("/d");
        t.rename("/e", "/d");
        assertErrno(Errno.ENOENT, () -> t.getdents(fd, 10));
    }

    @Test
    void getdents_directoryRenamed_keepsListingIt() {
        touch(t, "/d/x");
        int fd = openDir("/d");
        t.rename("/d", "/moved");
        assertEquals(List.of(".", "..", "x"), namesOf(readAll(fd, 10)));
    }

    @Test
    void getdents_regularFile_failsWithENOTDIR() {
        touch(t, "/f");
        fd = t.open("/f", OpenFlags.O_RDONLY);
        assertErrno(Errno.ENOTDIR, () -> t.getdents(fd, 10));
    }

    @Test
    void getdents_badDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.getdents(42, 10));
    }

    @Test
    void getdents_pathDescriptor_failsWithEBADF() {
        fd = t.open("/d", OpenFlags.O_PATH);
        assertErrno(Errno.EBADF, () -> t.getdents(fd, 10));
    }

    @Test
    void getdents_noRoom_failsWithEINVAL() {
        int fd = openDir("/d");
        assertErrno(Errno.EINVAL, () -> t.getdents(fd, 0));
    }

    @Test
    void readdir_listsNamesWithoutDotEntries() {
        populate(3);
        assertEquals(
                List.of("n000", "n001", "n002"),
                namesOf(t.readdir("/d")).stream().sorted().toList());
    }
}
