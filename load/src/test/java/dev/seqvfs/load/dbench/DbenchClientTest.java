package dev.seqvfs.load.dbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Specifies {@link DbenchClient} on SeqVFS: each loadfile operation is run as dbench's local-file
 * backend ({@code fileio.c}) runs it, and ends with the NT status a Samba server would have
 * answered.
 *
 * <p>Every test starts from this tree (client 1):
 *
 * <pre>
 * /clients/client1/
 *     dir/            (empty)
 *     WORD.JNK        (empty file)
 *     data            (10 bytes)
 * </pre>
 */
class DbenchClientTest {
    private static SeqVfs vfs;
    private VfsTask root;
    private DbenchClient<Integer> client;

    @BeforeAll
    static void boot() {
        vfs = SeqVfs.create(ConfigFactory.parseString("seqvfs.proc.mount = off"));
    }

    @AfterAll
    static void shutdown() {
        vfs.close();
    }

    @BeforeEach
    void tree() {
        root = vfs.newTask(Credentials.ROOT);
        if (exists("/clients")) {
            DbenchClient<Integer> cleaner = new DbenchClient<>(new SeqVfsClientFs(root, 16), 1);
            run(cleaner, "Deltree \"\\clients\" NT_STATUS_OK");
        }
        root.mkdir("/clients", 0755);
        root.mkdir("/clients/client1", 0755);
        root.mkdir("/clients/client1/dir", 0755);
        root.close(
                root.open(
                        "/clients/client1/WORD.JNK",
                        dev.seqvfs.protocol.OpenFlags.O_CREAT
                                | dev.seqvfs.protocol.OpenFlags.O_WRONLY,
                        0644));
        int fd =
                root.open(
                        "/clients/client1/data",
                        dev.seqvfs.protocol.OpenFlags.O_CREAT
                                | dev.seqvfs.protocol.OpenFlags.O_WRONLY,
                        0644);
        root.write(fd, new byte[10]);
        root.close(fd);
        client = new DbenchClient<>(new SeqVfsClientFs(vfs.newTask(Credentials.ROOT), 1 << 16), 1);
    }

    private boolean exists(String path) {
        try {
            root.stat(path);
            return true;
        } catch (VfsException e) {
            return false;
        }
    }

    private static LoadOp op(String line) {
        try {
            return Loadfile.parse(line).ops().get(0);
        } catch (LoadfileException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static DbenchClient.Outcome run(DbenchClient<?> c, String line) {
        return c.run(op(line)).join();
    }

    /** A SeqVFS client view whose {@code method} throws {@code failure} instead. */
    @SuppressWarnings("unchecked")
    private static ClientFs<Integer> failing(String method, RuntimeException failure) {
        ClientFs<Integer> real = new SeqVfsClientFs(vfs.newTask(Credentials.ROOT), 16);
        return (ClientFs<Integer>)
                Proxy.newProxyInstance(
                        ClientFs.class.getClassLoader(),
                        new Class<?>[] {ClientFs.class},
                        (proxy, m, args) -> {
                            if (m.getName().equals(method)) {
                                throw failure;
                            }
                            try {
                                return m.invoke(real, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
    }

    private DbenchClient.Outcome run(String line) {
        return run(client, line);
    }

    private static void assertStatus(NtStatus expected, DbenchClient.Outcome got) {
        assertEquals(expected, got.status(), () -> "got " + got);
        assertNull(got.detail(), () -> "detail: " + got.detail());
    }

    @Test
    void ntCreateX_openOfMissingFile_isObjectNameNotFound() {
        assertStatus(
                NtStatus.OBJECT_NAME_NOT_FOUND,
                run(
                        "NTCreateX \"\\clients\\client1\\nope\" 0x40 0x1 7 NT_STATUS_OBJECT_NAME_NOT_FOUND"));
        assertEquals(0, client.openHandles());
    }

    @Test
    void ntCreateX_inMissingDirectory_isObjectPathNotFound() {
        assertStatus(
                NtStatus.OBJECT_PATH_NOT_FOUND,
                run("NTCreateX \"\\clients\\client1\\nodir\\f\" 0x40 0x2 7 NT_STATUS_OK"));
    }

    @Test
    void ntCreateX_fileCreate_createsTheFileAndRemembersTheHandle() {
        assertStatus(
                NtStatus.OK, run("NTCreateX \"\\clients\\client1\\new\" 0x40 0x2 7 NT_STATUS_OK"));
        assertTrue(root.stat("/clients/client1/new").isRegular());
        assertEquals(0600, root.stat("/clients/client1/new").permissions());
        assertStatus(NtStatus.OK, run("WriteX 7 0 100 100 NT_STATUS_OK"));
        assertEquals(100, root.stat("/clients/client1/new").size());
        assertStatus(NtStatus.OK, run("Close 7 NT_STATUS_OK"));
        assertEquals(0, client.openHandles());
    }

    @Test
    void ntCreateX_overwriteIf_truncatesAnExistingFile() {
        assertStatus(
                NtStatus.OK, run("NTCreateX \"\\clients\\client1\\data\" 0x40 0x5 7 NT_STATUS_OK"));
        assertEquals(0, root.stat("/clients/client1/data").size());
    }

    @Test
    void ntCreateX_openIf_doesNotCreateAsDbenchDoesNot() {
        assertStatus(
                NtStatus.OBJECT_NAME_NOT_FOUND,
                run("NTCreateX \"\\clients\\client1\\nope\" 0x40 0x3 7 NT_STATUS_OK"));
    }

    @Test
    void ntCreateX_directoryOption_makesTheDirectoryAndOpensIt() {
        assertStatus(
                NtStatus.OK, run("NTCreateX \"\\clients\\client1\\sub\" 0x1 0x2 7 NT_STATUS_OK"));
        Stat st = root.stat("/clients/client1/sub");
        assertTrue(st.isDirectory());
        assertEquals(0700, st.permissions());
        assertEquals(1, client.openHandles());
    }

    @Test
    void ntCreateX_directoryWithoutDirectoryOption_isOpenedAsDirectory() {
        assertStatus(
                NtStatus.OK, run("NTCreateX \"\\clients\\client1\\dir\" 0x0 0x1 7 NT_STATUS_OK"));
        assertStatus(NtStatus.OK, run("QUERY_FILE_INFORMATION 7 1004 NT_STATUS_OK"));
    }

    @Test
    void ntCreateX_successWhereTheCaptureFailed_closesTheFileAgain() {
        DbenchClient.Outcome o =
                run(
                        "NTCreateX \"\\clients\\client1\\data\" 0x40 0x1 7 NT_STATUS_OBJECT_NAME_NOT_FOUND");
        assertStatus(NtStatus.OK, o);
        assertFalse(
                o.matches(
                        op(
                                "NTCreateX \"\\clients\\client1\\data\" 0x40 0x1 7 NT_STATUS_OBJECT_NAME_NOT_FOUND")));
        assertEquals(0, client.openHandles());
    }

    @Test
    void readX_pastTheEnd_isAShortReadMismatch() {
        run("NTCreateX \"\\clients\\client1\\data\" 0x40 0x1 7 NT_STATUS_OK");
        DbenchClient.Outcome o = run("ReadX 7 4 100 100 NT_STATUS_OK");
        assertEquals(NtStatus.OK, o.status());
        assertEquals("read 6 bytes, the capture read 100", o.detail());
        assertEquals(100, client.bytes(), "dbench counts the size asked for");
    }

    @Test
    void closeAll_closesEveryHandleLeftOpen() {
        run("NTCreateX \"\\clients\\client1\\data\" 0x40 0x1 7 NT_STATUS_OK");
        run("NTCreateX \"\\clients\\client1\\dir\" 0x1 0x2 8 NT_STATUS_OK");
        client.closeAll().join();
        assertEquals(0, client.openHandles());
        assertEquals(NtStatus.INVALID_HANDLE, run("Close 7 NT_STATUS_OK").status());
        assertStatus(
                NtStatus.OK, run("NTCreateX \"\\clients\\client1\\data\" 0x40 0x1 7 NT_STATUS_OK"));
    }

    @Test
    void close_ofAHandleNeverOpened_isInvalidHandle() {
        DbenchClient.Outcome o = run("Close 99 NT_STATUS_OK");
        assertEquals(NtStatus.INVALID_HANDLE, o.status());
        assertNotNull(o.detail());
    }

    @Test
    void queryPathInformation_existingAndMissing() {
        assertStatus(
                NtStatus.OK,
                run("QUERY_PATH_INFORMATION \"\\clients\\client1\\data\" 1004 NT_STATUS_OK"));
        assertStatus(
                NtStatus.OBJECT_NAME_NOT_FOUND,
                run("QUERY_PATH_INFORMATION \"\\clients\\client1\\nope\" 1004 NT_STATUS_OK"));
        assertStatus(
                NtStatus.OBJECT_PATH_NOT_FOUND,
                run("QUERY_PATH_INFORMATION \"\\clients\\client1\\nodir\\x\" 1004 NT_STATUS_OK"));
        assertStatus(
                NtStatus.OBJECT_PATH_NOT_FOUND,
                run("QUERY_PATH_INFORMATION \"\\clients\\client1\\data\\x\" 1004 NT_STATUS_OK"));
    }

    @Test
    void findFirst_dosStarPattern_matchesIgnoringCase() {
        assertStatus(
                NtStatus.OK,
                run("FIND_FIRST \"\\clients\\client1\\<.jnk\" 260 1366 1 NT_STATUS_OK"));
        assertStatus(
                NtStatus.NO_SUCH_FILE,
                run("FIND_FIRST \"\\clients\\client1\\dir\\<.JNK\" 260 1366 0 NT_STATUS_OK"));
        assertStatus(
                NtStatus.OK,
                run("FIND_FIRST \"\\clients\\client1\\dir\\*\" 260 1366 2 NT_STATUS_OK"));
        assertStatus(NtStatus.OK, run("FIND_FIRST \"\\clients\\client1\\*\" 260 2 2 NT_STATUS_OK"));
        assertStatus(
                NtStatus.OBJECT_PATH_NOT_FOUND,
                run("FIND_FIRST \"\\clients\\client1\\nodir\\*\" 260 1366 0 NT_STATUS_OK"));
    }

    @Test
    void findFirst_matchCountOtherThanTheCaptures_isAMismatch() {
        DbenchClient.Outcome o =
                run("FIND_FIRST \"\\clients\\client1\\*\" 260 1366 4 NT_STATUS_OK");
        assertEquals(NtStatus.OK, o.status());
        assertEquals("listed 5 matching entries, the capture listed 4", o.detail());
    }

    @Test
    void deltree_removesTheTreeAndTheDirectory() {
        run("NTCreateX \"\\clients\\client1\\dir\\deep\" 0x1 0x2 7 NT_STATUS_OK");
        run("Close 7 NT_STATUS_OK");
        assertStatus(NtStatus.OK, run("Deltree \"\\clients\\client1\" NT_STATUS_OK"));
        assertFalse(exists("/clients/client1"));
        assertTrue(exists("/clients"));
        assertStatus(NtStatus.OK, run("Deltree \"\\clients\\client1\" NT_STATUS_OK"));
    }

    @Test
    void mkdir_ofAnExistingDirectory_isForgivenAsDbenchIgnoresIt() {
        assertStatus(NtStatus.OK, run("Mkdir \"\\clients\" NT_STATUS_OK"));
        assertStatus(
                NtStatus.OBJECT_NAME_COLLISION,
                run("Mkdir \"\\clients\\client1\\data\" NT_STATUS_OK"));
    }

    @Test
    void unlinkRenameRmdir_reportTheCallsStatus() {
        assertStatus(
                NtStatus.OK,
                run(
                        "Rename \"\\clients\\client1\\data\" \"\\clients\\client1\\moved\" NT_STATUS_OK"));
        assertTrue(exists("/clients/client1/moved"));
        assertStatus(NtStatus.OK, run("Unlink \"\\clients\\client1\\moved\" 0x6 NT_STATUS_OK"));
        assertStatus(
                NtStatus.OBJECT_NAME_NOT_FOUND,
                run("Unlink \"\\clients\\client1\\moved\" 0x6 NT_STATUS_OK"));
        assertStatus(
                NtStatus.OBJECT_PATH_NOT_FOUND,
                run("Unlink \"\\clients\\client1\\no\\x\" 0x6 NT_STATUS_OK"));
        assertStatus(
                NtStatus.OBJECT_PATH_NOT_FOUND,
                run(
                        "Rename \"\\clients\\client1\\no\\x\" "
                                + "\"\\clients\\client1\\y\" NT_STATUS_OK"));
        run("NTCreateX \"\\clients\\client1\\dir\\f\" 0x40 0x2 7 NT_STATUS_OK");
        assertStatus(
                NtStatus.DIRECTORY_NOT_EMPTY,
                run("Rmdir \"\\clients\\client1\\dir\" NT_STATUS_OK"));
    }

    @Test
    void setFileInformation_movesTimesBackByTenAndTwelveSeconds() {
        run("NTCreateX \"\\clients\\client1\\data\" 0x40 0x1 7 NT_STATUS_OK");
        Stat before = root.stat("/clients/client1/data");
        assertStatus(NtStatus.OK, run("SET_FILE_INFORMATION 7 1004 NT_STATUS_OK"));
        Stat after = root.stat("/clients/client1/data");
        assertEquals(
                before.mtimeNanos() / 1_000_000_000L - 12, after.mtimeNanos() / 1_000_000_000L);
        assertEquals(
                before.atimeNanos() / 1_000_000_000L - 10, after.atimeNanos() / 1_000_000_000L);
    }

    @Test
    void fsAndFileInformationFlushAndLocks_succeedOnAnOpenHandle() {
        run("NTCreateX \"\\clients\\client1\\data\" 0x40 0x1 7 NT_STATUS_OK");
        for (String line :
                List.of(
                        "QUERY_FS_INFORMATION 1 NT_STATUS_OK",
                        "QUERY_FILE_INFORMATION 7 258 NT_STATUS_OK",
                        "Flush 7 NT_STATUS_OK",
                        "LockX 7 2147483538 1 NT_STATUS_OK",
                        "UnlockX 7 2147483538 1 NT_STATUS_OK")) {
            assertStatus(NtStatus.OK, run(line));
        }
    }

    @Test
    void lockX_heldByAnotherClient_isLockNotGranted() {
        DbenchClient<Integer> other =
                new DbenchClient<>(new SeqVfsClientFs(vfs.newTask(Credentials.ROOT), 16), 1);
        run(other, "NTCreateX \"\\clients\\client1\\data\" 0x40 0x1 8 NT_STATUS_OK");
        run("NTCreateX \"\\clients\\client1\\data\" 0x40 0x1 7 NT_STATUS_OK");
        assertStatus(NtStatus.OK, run(other, "LockX 8 100 1 NT_STATUS_OK"));
        assertStatus(NtStatus.LOCK_NOT_GRANTED, run("LockX 7 100 1 NT_STATUS_OK"));
    }

    @Test
    void run_failureThatIsNoFileSystemAnswer_fails() {
        DbenchClient<Integer> c =
                new DbenchClient<>(failing("stat", new IllegalStateException("boom")), 1);
        RuntimeException e =
                assertThrows(
                        RuntimeException.class,
                        () ->
                                run(
                                        c,
                                        "QUERY_PATH_INFORMATION \"\\clients\\client1\\data\" 1004 NT_STATUS_OK"));
        assertEquals("boom", (e.getCause() != null ? e.getCause() : e).getMessage());
    }

    @Test
    void run_errnoOfADirectCall_isAnAnswerNotAFailure() {
        DbenchClient<Integer> c =
                new DbenchClient<>(
                        failing("statfs", new VfsException(Errno.EIO, Syscall.STATFS, "/")), 1);
        assertStatus(NtStatus.IO_DEVICE_ERROR, run(c, "QUERY_FS_INFORMATION 1 NT_STATUS_OK"));
    }
}
