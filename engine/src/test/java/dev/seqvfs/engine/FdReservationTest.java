package dev.seqvfs.engine;

import static dev.seqvfs.protocol.OpenFlags.O_CREAT;
import static dev.seqvfs.protocol.OpenFlags.O_RDONLY;
import static dev.seqvfs.protocol.OpenFlags.O_RDWR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.fdtable.FilesStruct;
import dev.seqvfs.engine.fdtable.InstallClaim;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.walk.VfsPath;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Descriptors reserved by an open in progress ({@code get_unused_fd_flags}, then {@code fd_install}
 * or {@code put_unused_fd}): a reserved descriptor is not open ({@code EBADF}), is handed to no
 * other allocation, is {@code EBUSY} for {@code dup2} (Linux's {@code do_dup2}), counts against
 * {@code RLIMIT_NOFILE}, and a reservation ends exactly once. A credit (an unnamed reservation
 * taken from the table's pool without a message) keeps a slot the same way: allocations by name
 * take the pool back before they fail, and fail only when opens in progress hold every free slot.
 */
class FdReservationTest {
    SeqVfs vfs;
    VfsTask t;

    @BeforeEach
    void up() {
        vfs =
                SeqVfs.create(
                        ConfigFactory.parseString(
                                "seqvfs.fd.rlimit-nofile = 4\nseqvfs.proc.mount = off"));
        t = vfs.newTask(Credentials.ROOT);
    }

    @AfterEach
    void down() {
        vfs.close();
    }

    private static Errno errno(Runnable r) {
        return assertThrows(VfsException.class, r::run).errno();
    }

    private FdReservation reserve() {
        return FdReservation.reserveNamedBlocking(vfs.asker(), t.context().files(), "test");
    }

    @Test
    void reserve_descriptorIsNotOpen_notHandedOut_andDup2OntoItIsEBUSY() {
        int f = t.open("/f", O_CREAT | O_RDWR, 0644);
        FdReservation r = reserve();
        assertEquals(1, r.fd());
        assertEquals(1, t.context().files().reservedCount());
        assertEquals(Errno.EBADF, errno(() -> t.fstat(1)));
        assertEquals(Errno.EBADF, errno(() -> t.close(1)));
        assertEquals(2, t.dup(f));
        assertEquals(Errno.EBUSY, errno(() -> t.dup2(f, 1)));
        r.release();
        r.release();
        assertEquals(0, t.context().files().reservedCount());
        assertEquals(1, t.dup2(f, 1));
        for (int fd : new int[] {0, 1, 2}) {
            t.close(fd);
        }
    }

    @Test
    void reserve_countsAgainstTheLimit_andAFullTableIsEMFILE() {
        t.close(t.open("/f", O_CREAT | O_RDWR, 0644));
        FdReservation a = reserve();
        FdReservation b = reserve();
        assertEquals(2, t.open("/f", O_RDONLY));
        assertEquals(3, t.open("/f", O_RDONLY));
        assertEquals(Errno.EMFILE, errno(this::reserve));
        assertEquals(Errno.EMFILE, errno(() -> t.dup(2)));
        a.release();
        assertEquals(0, t.dup(2));
        b.release();
        for (int fd : new int[] {0, 2, 3}) {
            t.close(fd);
        }
    }

    @Test
    void installReserved_installsThere_andEndsTheReservation() {
        t.close(t.open("/f", O_CREAT | O_RDWR, 0644));
        FdReservation r = reserve();
        assertEquals(0, r.fd());
        OpenFile file = openFile("/f");
        assertEquals(0, r.install(file, false, null, "test").join());
        assertEquals(0, t.context().files().reservedCount());
        assertEquals(t.stat("/f").ino(), t.fstat(0).ino());
        r.release(); // after the hand-over: changes nothing
        assertEquals(t.stat("/f").ino(), t.fstat(0).ino());
        t.close(0);
    }

    @Test
    void installReserved_withdrawnClaim_installsNothing_releasesTheFile_andEndsTheReservation() {
        t.close(t.open("/f", O_CREAT | O_RDWR, 0644));
        FdReservation r = reserve();
        OpenFile file = openFile("/f");
        InstallClaim claim = new InstallClaim();
        claim.tryWithdraw();
        CompletionException e =
                assertThrows(
                        CompletionException.class,
                        () -> r.install(file, false, claim, "test").join());
        assertEquals(Errno.EINTR, ((VfsException) e.getCause()).errno());
        assertEquals(0, file.refs());
        assertEquals(0, t.context().files().reservedCount());
        assertEquals(Errno.EBADF, errno(() -> t.fstat(0)));
        assertEquals(0, t.open("/f", O_RDONLY));
        t.close(0);
    }

    private FdReservation reserveAny() {
        return FdReservation.reserveBlocking(vfs.asker(), t.context().files(), "test");
    }

    @Test
    void credit_reservesWithoutNamingADescriptor_andInstallsOnTheLowestFreeOne() {
        t.close(t.open("/f", O_CREAT | O_RDWR, 0644));
        FilesStruct files = t.context().files();
        // RLIMIT_NOFILE 4, an empty table: the pool holds half the free slots.
        assertEquals(2, files.creditsAvailable());
        FdReservation r = reserveAny();
        assertEquals(FdReservation.UNNAMED, r.fd());
        assertEquals(1, files.reservedCount());
        assertEquals(1, files.creditsAvailable());
        assertEquals(0, r.install(openFile("/f"), false, null, "test").join());
        assertEquals(0, files.reservedCount());
        assertEquals(1, files.creditsAvailable(), "refilled to half of the 3 slots left");
        t.close(0);
        assertEquals(2, files.creditsAvailable());
        assertEquals(0, files.reservedCount());
    }

    @Test
    void heldCredits_keepTheirSlots_namedAllocationsFailEMFILE_andDup2OntoAFreeOneIsEBUSY() {
        t.close(t.open("/f", O_CREAT | O_RDWR, 0644));
        FilesStruct files = t.context().files();
        FdReservation a = reserveAny();
        FdReservation b = reserveAny();
        assertEquals(FdReservation.UNNAMED, a.fd());
        assertEquals(FdReservation.UNNAMED, b.fd());
        assertEquals(0, files.creditsAvailable());
        assertEquals(0, t.open("/f", O_RDONLY));
        assertEquals(1, t.open("/f", O_RDONLY));
        // Slots 2 and 3 are free but held by the two opens in progress.
        assertEquals(Errno.EMFILE, errno(() -> t.open("/f", O_RDONLY)));
        assertEquals(Errno.EMFILE, errno(() -> t.dup(0)));
        assertEquals(Errno.EMFILE, errno(t::pipe));
        assertEquals(Errno.EBUSY, errno(() -> t.dup2(0, 3)));
        assertEquals(2, a.install(openFile("/f"), false, null, "test").join());
        b.release();
        b.release();
        assertEquals(1, files.creditsAvailable(), "a credit given back returns to the pool");
        assertEquals(0, files.reservedCount());
        // dup2 takes the pooled credit back: slot 3 is free for it now.
        assertEquals(3, t.dup2(0, 3));
        assertEquals(0, files.creditsAvailable());
        for (int fd : new int[] {0, 1, 2, 3}) {
            t.close(fd);
        }
        assertEquals(0, files.reservedCount());
        assertEquals(2, files.creditsAvailable());
    }

    @Test
    void creditInstall_withdrawnClaim_installsNothing_releasesTheFile_andEndsTheCredit() {
        t.close(t.open("/f", O_CREAT | O_RDWR, 0644));
        FilesStruct files = t.context().files();
        FdReservation r = reserveAny();
        OpenFile file = openFile("/f");
        InstallClaim claim = new InstallClaim();
        claim.tryWithdraw();
        CompletionException e =
                assertThrows(
                        CompletionException.class,
                        () -> r.install(file, false, claim, "test").join());
        assertEquals(Errno.EINTR, ((VfsException) e.getCause()).errno());
        assertEquals(0, file.refs());
        assertEquals(0, files.reservedCount());
        assertEquals(2, files.creditsAvailable());
        assertEquals(Errno.EBADF, errno(() -> t.fstat(0)));
    }

    private OpenFile openFile(String path) {
        VfsPath p =
                t.context()
                        .attrs()
                        .resolve(VfsTask.AT_FDCWD, Filename.of(path), Syscall.OPEN, 0, 0);
        p.mnt().tryPin();
        return new OpenFile(p.inode(), p.mnt(), null, O_RDONLY);
    }
}
