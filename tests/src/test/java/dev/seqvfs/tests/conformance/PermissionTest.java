package dev.seqvfs.tests.conformance;

import static dev.seqvfs.protocol.OpenFlags.O_RDONLY;
import static dev.seqvfs.protocol.OpenFlags.O_RDWR;
import static dev.seqvfs.protocol.OpenFlags.O_WRONLY;
import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.exists;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies the permission model of {@code path_resolution(7)}, {@code credentials(7)}, {@code
 * inode(7)} and {@code unlink(2)}/{@code rename(2)}/{@code mkdir(2)} for unprivileged tasks: one
 * class (owner, else group including supplementary groups, else other) decides; root overrides
 * read, write and search; sticky directories restrict removal and renaming to the owner of the file
 * or of the directory (EPERM); set-group-ID directories pass on their group, and to subdirectories
 * the bit; the umask applies at creation; chmod and chown are the owner's (or root's).
 *
 * <pre>
 * /home/          0755 root
 * /home/alice/    0750 alice(1000):staff(50)
 * /home/alice/f   0640 alice:staff
 * /tmp/           1777 root
 * /shared/        2775 root:staff(50)
 * </pre>
 *
 * Tasks: alice 1000:1000 with supplementary group 50; bob 1001:50 (primary staff); carol 1002:1002
 * with supplementary 60; eve 1003:1003 (no groups).
 */
@FileSystemContract
class PermissionTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask root;
    VfsTask alice;
    VfsTask bob;
    VfsTask carol;
    VfsTask eve;

    @BeforeEach
    void tree() {
        root = fs.root();
        root.mkdir("/home", 0755);
        root.mkdir("/home/alice", 0750);
        root.chown("/home/alice", 1000, 50);
        touch(root, "/home/alice/f", 0640);
        root.chown("/home/alice/f", 1000, 50);
        root.mkdir("/tmp", 0777);
        root.chmod("/tmp", 01777);
        root.mkdir("/shared", 0775);
        root.chown("/shared", 0, 50);
        root.chmod("/shared", 02775);
        alice = fs.task(1000, 1000, 50);
        bob = fs.task(1001, 50);
        carol = fs.task(1002, 1002, 60);
        eve = fs.task(1003, 1003);
    }

    private static void openClose(VfsTask t, String path, int flags) {
        t.close(t.open(path, flags));
    }

    // ---------------------------------------------------------------- mode classes

    @Test
    void owner_usesOwnerBits() {
        openClose(alice, "/home/alice/f", O_RDWR);
    }

    @Test
    void groupMember_usesGroupBits() {
        openClose(bob, "/home/alice/f", O_RDONLY);
        assertErrno(Errno.EACCES, () -> openClose(bob, "/home/alice/f", O_WRONLY));
    }

    @Test
    void supplementaryGroup_countsAsGroupMembership() {
        root.chown("/home/alice/f", 1002, 60);
        root.chmod("/home/alice/f", 0060);
        root.chmod("/home/alice", 0755);
        openClose(fs.task(1004, 1004, 60), "/home/alice/f", O_RDWR);
        assertErrno(Errno.EACCES, () -> openClose(eve, "/home/alice/f", O_RDONLY));
    }

    @Test
    void other_usesOtherBitsAndSearchPermissionGuardsTheDirectory() {
        assertErrno(Errno.EACCES, () -> openClose(eve, "/home/alice/f", O_RDONLY));
        root.chmod("/home/alice", 0751);
        assertErrno(Errno.EACCES, () -> openClose(eve, "/home/alice/f", O_RDONLY));
        root.chmod("/home/alice/f", 0644);
        openClose(eve, "/home/alice/f", O_RDONLY);
    }

    @Test
    void ownerClass_deniesEvenWhenGroupOrOtherWouldAllow() {
        root.chmod("/home/alice/f", 0077);
        assertErrno(Errno.EACCES, () -> openClose(alice, "/home/alice/f", O_RDONLY));
        openClose(bob, "/home/alice/f", O_RDWR);
    }

    @Test
    void groupClass_deniesEvenWhenOtherWouldAllow() {
        root.chmod("/home/alice/f", 0607);
        assertErrno(Errno.EACCES, () -> openClose(bob, "/home/alice/f", O_RDONLY));
    }

    @Test
    void root_readsWritesAndSearchesRegardlessOfMode() {
        root.chmod("/home/alice", 0);
        root.chmod("/home/alice/f", 0);
        openClose(root, "/home/alice/f", O_RDWR);
        touch(root, "/home/alice/g");
        root.unlink("/home/alice/g");
    }

    @Test
    void create_needsWriteAndSearchOnTheDirectory() {
        assertErrno(Errno.EACCES, () -> touch(bob, "/home/alice/g"));
        root.chmod("/home/alice", 0760);
        assertErrno(Errno.EACCES, () -> touch(bob, "/home/alice/g"));
        root.chmod("/home/alice", 0770);
        touch(bob, "/home/alice/g");
        assertEquals(1001, root.stat("/home/alice/g").uid());
    }

    @Test
    void unlink_needsWriteOnTheDirectoryNotOnTheFile() {
        root.chmod("/home/alice/f", 0);
        alice.unlink("/home/alice/f");
        touch(root, "/home/alice/g", 0666);
        root.chmod("/home/alice/g", 0666);
        assertErrno(Errno.EACCES, () -> bob.unlink("/home/alice/g"));
    }

    // ---------------------------------------------------------------- sticky directories

    @Test
    void stickyDirectory_otherUserCannotUnlinkOrRenameYourFile() {
        touch(alice, "/tmp/a", 0666);
        assertErrno(Errno.EPERM, () -> bob.unlink("/tmp/a"));
        assertErrno(Errno.EPERM, () -> bob.rename("/tmp/a", "/tmp/b"));
        assertErrno(Errno.EPERM, () -> bob.rename("/tmp/a", "/home/b"));
        assertTrue(exists(root, "/tmp/a"));
    }

    @Test
    void stickyDirectory_otherUserCannotReplaceYourFileByRename() {
        touch(alice, "/tmp/a", 0666);
        touch(bob, "/tmp/b", 0666);
        assertErrno(Errno.EPERM, () -> bob.rename("/tmp/b", "/tmp/a"));
        assertEquals(1000, root.stat("/tmp/a").uid());
        assertErrno(
                Errno.EPERM,
                () ->
                        bob.renameat2(
                                VfsTask.AT_FDCWD,
                                "/tmp/b",
                                VfsTask.AT_FDCWD,
                                "/tmp/a",
                                OpenFlags.RENAME_EXCHANGE));
    }

    @Test
    void stickyDirectory_otherUserCannotRemoveYourDirectory() {
        alice.mkdir("/tmp/d", 0777);
        assertErrno(Errno.EPERM, () -> bob.rmdir("/tmp/d"));
        alice.rmdir("/tmp/d");
    }

    @Test
    void stickyDirectory_fileOwnerMayUnlinkAndRename() {
        touch(alice, "/tmp/a", 0600);
        alice.rename("/tmp/a", "/tmp/b");
        alice.unlink("/tmp/b");
        assertFalse(exists(root, "/tmp/b"));
    }

    @Test
    void stickyDirectory_directoryOwnerMayUnlinkOthersFiles() {
        alice.mkdir("/tmp/mine", 0777);
        alice.chmod("/tmp/mine", 01777);
        touch(bob, "/tmp/mine/x", 0600);
        alice.unlink("/tmp/mine/x");
        alice.rmdir("/tmp/mine");
    }

    @Test
    void stickyDirectory_rootMayUnlinkAnything() {
        touch(alice, "/tmp/a", 0600);
        root.unlink("/tmp/a");
    }

    @Test
    void stickyDirectory_withoutWritePermission_failsWithEACCESFirst() {
        touch(alice, "/tmp/a", 0600);
        root.chmod("/tmp", 01755);
        assertErrno(Errno.EACCES, () -> bob.unlink("/tmp/a"));
    }

    @Test
    void stickyBitOnFileOnlyDirectory_doesNotProtectWithoutIt() {
        root.chmod("/tmp", 0777);
        touch(alice, "/tmp/a", 0600);
        bob.unlink("/tmp/a");
        assertFalse(exists(root, "/tmp/a"));
    }

    // ---------------------------------------------------------------- set-group-ID directories

    @Test
    void setgidDirectory_newFileTakesDirectoryGroupWithoutTheBit() {
        touch(bob, "/shared/b", 0664);
        root.chmod("/shared", 02777);
        touch(carol, "/shared/c", 0664);
        Stat c = root.stat("/shared/c");
        assertEquals(1002, c.uid());
        assertEquals(50, c.gid());
        assertEquals(0644, c.permissions());
        assertEquals(50, root.stat("/shared/b").gid());
    }

    @Test
    void setgidDirectory_newSubdirectoryTakesGroupAndTheBit() {
        root.chmod("/shared", 02777);
        carol.mkdir("/shared/sub", 0755);
        Stat st = root.stat("/shared/sub");
        assertEquals(50, st.gid());
        assertEquals(02755, st.permissions());
        carol.mkdir("/shared/sub/deeper", 0700);
        assertEquals(50, root.stat("/shared/sub/deeper").gid());
        assertEquals(02700, root.stat("/shared/sub/deeper").permissions());
    }

    @Test
    void setgidDirectory_otherNodesTakeTheGroupToo() {
        root.chmod("/shared", 02777);
        carol.symlink("x", "/shared/l");
        carol.mknod("/shared/p", Mode.S_IFIFO | 0644, 0);
        assertEquals(50, root.lstat("/shared/l").gid());
        assertEquals(50, root.stat("/shared/p").gid());
    }

    @Test
    void setgidDirectory_nonMemberCreatingGroupExecutableSetgidFile_losesTheBit() {
        root.chmod("/shared", 02777);
        eve.umask(0);
        eve.close(eve.open("/shared/x", OpenFlags.O_CREAT | O_WRONLY, 02775));
        assertEquals(0775, root.stat("/shared/x").permissions());
        bob.umask(0);
        bob.close(bob.open("/shared/y", OpenFlags.O_CREAT | O_WRONLY, 02775));
        assertEquals(02775, root.stat("/shared/y").permissions());
    }

    @Test
    void plainDirectory_newFileTakesCreatorsPrimaryGroup() {
        touch(carol, "/tmp/c");
        assertEquals(1002, root.stat("/tmp/c").gid());
    }

    // ---------------------------------------------------------------- umask, chmod, chown

    @Test
    void umask_appliesToUnprivilegedCreation() {
        alice.umask(077);
        touch(alice, "/tmp/a", 0666);
        alice.mkdir("/tmp/d", 0777);
        assertEquals(0600, root.stat("/tmp/a").permissions());
        assertEquals(0700, root.stat("/tmp/d").permissions());
    }

    @Test
    void chmod_onlyOwnerOrRoot_elseEPERM() {
        assertErrno(Errno.EPERM, () -> bob.chmod("/home/alice/f", 0666));
        alice.chmod("/home/alice/f", 0600);
        root.chmod("/home/alice/f", 0604);
        assertEquals(0604, root.stat("/home/alice/f").permissions());
    }

    @Test
    void chown_ownerMayOnlyPickOwnGroups_andNeverGiveAway() {
        alice.chown("/home/alice/f", -1, 1000);
        alice.chown("/home/alice/f", -1, 50);
        assertErrno(Errno.EPERM, () -> alice.chown("/home/alice/f", -1, 60));
        assertErrno(Errno.EPERM, () -> alice.chown("/home/alice/f", 1001, -1));
        assertErrno(Errno.EPERM, () -> bob.chown("/home/alice/f", -1, 50));
        root.chown("/home/alice/f", 1001, 60);
        assertEquals(1001, root.stat("/home/alice/f").uid());
    }
}
