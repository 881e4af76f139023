package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Io.content;
import static dev.seqvfs.tests.conformance.Io.read;
import static dev.seqvfs.tests.conformance.Io.write;
import static dev.seqvfs.tests.conformance.Io.writeFile;
import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.exists;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.SocketFlags;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies what {@code proc(5)} shows of open files: {@code /proc/self} names the caller's pid;
 * {@code /proc/self/fd/N} is a link whose text is the file's path (with " (deleted)" once
 * unlinked), {@code pipe:[ino]}, {@code socket:[ino]} or {@code anon_inode:[eventfd]}, and which
 * opens the file itself (an unlinked file too; a pipe as a FIFO end of the same pipe; a socket or
 * an eventfd is ENXIO); {@code /proc/self/fdinfo/N} gives {@code pos}, {@code flags} (octal, with
 * {@code O_CLOEXEC} for {@code FD_CLOEXEC}, and the {@code O_LARGEFILE} (0100000) x86-64 Linux adds
 * to files {@code open(2)} opens, a pipe end reopened through {@code /proc} included, but not to
 * {@code pipe2} ends), {@code mnt_id} and {@code ino}; a closed descriptor is ENOENT in both.
 * Values measured on Linux 6.18.
 *
 * <p>A file renamed after it was opened shows its new path ({@code d_path} of the moved dentry):
 * with hard links, the path of the link it was opened through, followed through that link's own
 * renames, and {@code " (deleted)"} once that link is unlinked or replaced, even while other links
 * remain. Measured on the host with a C program on {@code /dev/shm} (renames within and across
 * directories, twice, through a hard link, {@code RENAME_EXCHANGE}, a rename over the file, a
 * removed parent directory).
 *
 * <pre>
 * /proc   procfs (mounted here unless the instance already has it)
 * /d/f    regular file "hello"
 * </pre>
 */
@FileSystemContract
@Timeout(10)
class ProcTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;
    boolean mountedHere;

    @BeforeEach
    void mountProc() {
        t = fs.root();
        if (!exists(t, "/proc/self")) {
            if (!exists(t, "/proc")) {
                t.mkdir("/proc", 0555);
            }
            t.mount("proc", "/proc", "proc", 0, null);
            mountedHere = true;
        }
        t.mkdir("/d", 0755);
        writeFile(t, "/d/f", "hello");
    }

    @AfterEach
    void umountProc() {
        if (mountedHere) {
            t.umount("/proc");
        }
    }

    private String fdLink(int fd) {
        return t.readlink("/proc/self/fd/" + fd);
    }

    private String fdinfo(int fd) {
        return content(t, "/proc/self/fdinfo/" + fd);
    }

    @Test
    void procSelf_namesTheCallersPid() {
        assertEquals(Integer.toString(t.pid()), t.readlink("/proc/self"));
        VfsTask other = fs.task(1000, 1000);
        assertEquals(Integer.toString(other.pid()), other.readlink("/proc/self"));
        other.close();
    }

    @Test
    void fdLink_regularFileAndDirectory_showTheirPaths() {
        int f = t.open("/d/f", OpenFlags.O_RDONLY);
        int d = t.open("/d", OpenFlags.O_RDONLY);
        int p = t.open("/d/f", OpenFlags.O_PATH);
        assertEquals("/d/f", fdLink(f));
        assertEquals("/d", fdLink(d));
        assertEquals("/d/f", fdLink(p));
        assertEquals(FileType.SYMLINK, t.lstat("/proc/self/fd/" + f).type());
        t.close(f);
        t.close(d);
        t.close(p);
    }

    @Test
    void fdLink_unlinkedFile_showsDeleted_andStillOpensTheFile() {
        int f = t.open("/d/f", OpenFlags.O_RDWR);
        t.unlink("/d/f");
        assertEquals("/d/f (deleted)", fdLink(f));
        int again = t.open("/proc/self/fd/" + f, OpenFlags.O_RDONLY);
        assertEquals("hello", read(t, again, 10));
        assertEquals(t.fstat(f).ino(), t.fstat(again).ino());
        assertEquals(0, t.fstat(again).nlink());
        t.close(again);
        t.close(f);
    }

    @Test
    void fdLink_pipe_showsPipeAndTheInodeNumber() {
        int[] p = t.pipe();
        String expected = "pipe:[" + t.fstat(p[0]).ino() + "]";
        assertEquals(expected, fdLink(p[0]));
        assertEquals(expected, fdLink(p[1]));
        t.close(p[0]);
        t.close(p[1]);
    }

    @Test
    void fdLink_socket_showsSocketAndTheInodeNumber() {
        int s = t.socket(SocketFlags.AF_INET, SocketFlags.SOCK_STREAM, 0);
        int[] sp = t.socketpair(SocketFlags.AF_UNIX, SocketFlags.SOCK_STREAM, 0);
        assertEquals("socket:[" + t.fstat(s).ino() + "]", fdLink(s));
        assertEquals("socket:[" + t.fstat(sp[1]).ino() + "]", fdLink(sp[1]));
        t.closeRange(0, -1, 0);
    }

    @Test
    void fdLink_eventfd_showsAnonInodeEventfd() {
        int e = t.eventfd(0, 0);
        assertEquals("anon_inode:[eventfd]", fdLink(e));
        t.close(e);
    }

    @Test
    void open_pipeThroughProc_opensAFifoEndOfTheSamePipe() {
        int[] p = t.pipe();
        int w = t.open("/proc/self/fd/" + p[0], OpenFlags.O_WRONLY);
        int r = t.open("/proc/self/fd/" + p[1], OpenFlags.O_RDONLY);
        assertEquals(
                OpenFlags.O_WRONLY | OpenFlags.O_LARGEFILE,
                t.fcntl(w, dev.seqvfs.protocol.Fcntl.F_GETFL, 0));
        write(t, w, "via proc");
        assertEquals("via", read(t, r, 3));
        assertEquals(" proc", read(t, p[0], 10));
        // The new write end keeps the pipe writable after the original one closes.
        t.close(p[1]);
        write(t, w, "!");
        t.close(w);
        assertEquals("!", read(t, p[0], 10));
        assertEquals(0, t.read(p[0], new byte[1], 0, 1));
        t.close(r);
        t.close(p[0]);
    }

    @Test
    void open_pipeThroughProcReadWrite_opensBothDirections() {
        int[] p = t.pipe();
        int rw = t.open("/proc/self/fd/" + p[0], OpenFlags.O_RDWR);
        assertEquals(
                OpenFlags.O_RDWR | OpenFlags.O_LARGEFILE,
                t.fcntl(rw, dev.seqvfs.protocol.Fcntl.F_GETFL, 0));
        write(t, rw, "ab");
        assertEquals("a", read(t, rw, 1));
        assertEquals("b", read(t, p[0], 1));
        t.close(p[1]);
        // rw is still a writer: no end of file for the read end.
        t.fcntl(p[0], dev.seqvfs.protocol.Fcntl.F_SETFL, OpenFlags.O_NONBLOCK);
        assertErrno(Errno.EAGAIN, () -> read(t, p[0], 1));
        t.close(rw);
        assertEquals(0, t.read(p[0], new byte[1], 0, 1));
        t.close(p[0]);
    }

    @Test
    void open_socketOrEventfdThroughProc_failsWithENXIO() {
        int s = t.socket(SocketFlags.AF_UNIX, SocketFlags.SOCK_STREAM, 0);
        int e = t.eventfd(0, 0);
        assertErrno(Errno.ENXIO, () -> t.open("/proc/self/fd/" + s, OpenFlags.O_RDWR));
        assertErrno(Errno.ENXIO, () -> t.open("/proc/self/fd/" + s, OpenFlags.O_RDONLY));
        assertErrno(Errno.ENXIO, () -> t.open("/proc/self/fd/" + e, OpenFlags.O_RDWR));
        int path = t.open("/proc/self/fd/" + s, OpenFlags.O_PATH);
        assertEquals(FileType.SOCKET, t.fstat(path).type());
        t.close(path);
        t.close(s);
        t.close(e);
    }

    @Test
    void fdinfo_showsPositionAndFlags() {
        int f = t.open("/d/f", OpenFlags.O_RDWR | OpenFlags.O_APPEND | OpenFlags.O_CLOEXEC);
        t.lseek(f, 3, VfsTask.SEEK_SET);
        String info = fdinfo(f);
        assertTrue(info.startsWith("pos:\t3\nflags:\t02102002\n"), info);
        assertTrue(info.contains("\nino:\t" + t.fstat(f).ino() + "\n"), info);
        assertTrue(info.contains("\nmnt_id:\t"), info);
        t.close(f);
    }

    @Test
    void fdinfo_pipeEnds_showTheirAccessModesWithoutOLargefile() {
        int[] p = t.pipe2(OpenFlags.O_NONBLOCK);
        assertTrue(fdinfo(p[0]).startsWith("pos:\t0\nflags:\t04000\n"), fdinfo(p[0]));
        assertTrue(fdinfo(p[1]).startsWith("pos:\t0\nflags:\t04001\n"), fdinfo(p[1]));
        t.close(p[0]);
        t.close(p[1]);
    }

    @Test
    void fdAndFdinfo_closedDescriptor_failWithENOENT() {
        // Descriptor 50: a listing of /proc/self/fd opens the lowest free one itself.
        int opened = t.open("/d/f", OpenFlags.O_RDONLY);
        int f = t.dup2(opened, 50);
        t.close(opened);
        String name = Integer.toString(f);
        assertTrue(Sys.names(t, "/proc/self/fd").contains(name));
        t.close(f);
        assertErrno(Errno.ENOENT, () -> t.readlink("/proc/self/fd/" + f));
        assertErrno(Errno.ENOENT, () -> t.open("/proc/self/fdinfo/" + f, OpenFlags.O_RDONLY));
        assertErrno(Errno.ENOENT, () -> t.stat("/proc/self/fd/" + f));
        assertFalse(Sys.names(t, "/proc/self/fd").contains(name));
    }

    @Test
    void fdLink_ofAnotherTask_isVisibleUnderItsPid() {
        VfsTask other = fs.task(0, 0);
        int f = other.open("/d/f", OpenFlags.O_RDONLY);
        assertEquals("/d/f", t.readlink("/proc/" + other.pid() + "/fd/" + f));
        other.close(f);
        assertErrno(Errno.ENOENT, () -> t.readlink("/proc/" + other.pid() + "/fd/" + f));
        other.close();
    }

    @Test
    void fdLink_fileRenamedWithinItsDirectory_showsTheNewName() {
        int f = t.open("/d/f", OpenFlags.O_RDONLY);
        t.rename("/d/f", "/d/g");
        assertEquals("/d/g", fdLink(f));
        t.close(f);
    }

    @Test
    void fdLink_fileRenamedAcrossDirectoriesTwice_showsTheLatestPath() {
        t.mkdir("/e", 0755);
        int f = t.open("/d/f", OpenFlags.O_RDONLY);
        t.rename("/d/f", "/e/h");
        assertEquals("/e/h", fdLink(f));
        t.rename("/e/h", "/e/i");
        assertEquals("/e/i", fdLink(f));
        t.rename("/e/i", "/d/j");
        assertEquals("/d/j", fdLink(f));
        t.close(f);
    }

    @Test
    void fdLink_openedThroughAHardLinkThenRenamed_followsThatLinkOnly() {
        // /d/f and /d/hl name one inode; fd h was opened through /d/hl
        t.link("/d/f", "/d/hl");
        int f = t.open("/d/f", OpenFlags.O_RDONLY);
        int h = t.open("/d/hl", OpenFlags.O_RDONLY);
        t.mkdir("/e", 0755);
        t.rename("/d/hl", "/e/hl2");
        assertEquals("/e/hl2", fdLink(h));
        assertEquals("/d/f", fdLink(f));
        t.unlink("/e/hl2");
        assertEquals("/e/hl2 (deleted)", fdLink(h));
        assertEquals("/d/f", fdLink(f));
        t.close(h);
        t.close(f);
    }

    @Test
    void fdLink_renamedThenUnlinked_showsTheNewNameDeleted() {
        int f = t.open("/d/f", OpenFlags.O_RDONLY);
        t.rename("/d/f", "/d/g");
        t.unlink("/d/g");
        assertEquals("/d/g (deleted)", fdLink(f));
        t.close(f);
    }

    @Test
    void fdLink_fileReplacedByARenameOverIt_showsDeleted_andTheMovedFileItsNewName() {
        writeFile(t, "/d/victim", "v");
        int v = t.open("/d/victim", OpenFlags.O_RDONLY);
        int f = t.open("/d/f", OpenFlags.O_RDONLY);
        t.rename("/d/f", "/d/victim");
        assertEquals("/d/victim (deleted)", fdLink(v));
        assertEquals("/d/victim", fdLink(f));
        t.close(v);
        t.close(f);
    }

    @Test
    void fdLink_renameExchange_showsEachFilesNewName() {
        writeFile(t, "/d/y", "y");
        int x = t.open("/d/f", OpenFlags.O_RDONLY);
        int y = t.open("/d/y", OpenFlags.O_RDONLY);
        t.renameat2(VfsTask.AT_FDCWD, "/d/f", VfsTask.AT_FDCWD, "/d/y", OpenFlags.RENAME_EXCHANGE);
        assertEquals("/d/y", fdLink(x));
        assertEquals("/d/f", fdLink(y));
        t.mkdir("/e", 0755);
        writeFile(t, "/e/z", "z");
        int z = t.open("/e/z", OpenFlags.O_RDONLY);
        t.renameat2(VfsTask.AT_FDCWD, "/d/y", VfsTask.AT_FDCWD, "/e/z", OpenFlags.RENAME_EXCHANGE);
        assertEquals("/e/z", fdLink(x));
        assertEquals("/d/y", fdLink(z));
        t.close(x);
        t.close(y);
        t.close(z);
    }

    @Test
    void fdLink_directoryAboveRenamed_showsThePathThroughItsNewName() {
        // /d/sub/f, opened, then /d renamed to /c
        t.mkdir("/d/sub", 0755);
        writeFile(t, "/d/sub/f", "x");
        int f = t.open("/d/sub/f", OpenFlags.O_RDONLY);
        t.rename("/d", "/c");
        assertEquals("/c/sub/f", fdLink(f));
        t.close(f);
    }

    @Test
    void fdLink_createdByOpenThenRenamed_showsTheNewName() {
        int f = t.open("/d/new", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
        t.rename("/d/new", "/d/newer");
        assertEquals("/d/newer", fdLink(f));
        t.close(f);
    }

    @Test
    void fdLink_unlinkedFileWhoseParentWasRemoved_showsItsLastPathDeletedOnce() {
        // Linux shows "/d/e/f (deleted)": the parent's name, one " (deleted)" suffix
        t.mkdir("/d/e", 0755);
        writeFile(t, "/d/e/f", "x");
        int f = t.open("/d/e/f", OpenFlags.O_RDONLY);
        int dir = t.open("/d/e", OpenFlags.O_RDONLY);
        t.unlink("/d/e/f");
        t.rmdir("/d/e");
        assertEquals("/d/e/f (deleted)", fdLink(f));
        assertEquals("/d/e (deleted)", fdLink(dir));
        t.close(f);
        t.close(dir);
    }

    @Test
    void fdLink_unlinkedThenParentRenamed_showsTheParentsNewNameDeleted() {
        int f = t.open("/d/f", OpenFlags.O_RDONLY);
        t.unlink("/d/f");
        t.rename("/d", "/n");
        assertEquals("/n/f (deleted)", fdLink(f));
        t.close(f);
    }

    @Test
    void fdLink_unlinkedThenSameNameRecreated_staysDeleted() {
        int f = t.open("/d/f", OpenFlags.O_RDONLY);
        t.unlink("/d/f");
        writeFile(t, "/d/f", "new");
        assertEquals("/d/f (deleted)", fdLink(f));
        t.close(f);
    }
}
