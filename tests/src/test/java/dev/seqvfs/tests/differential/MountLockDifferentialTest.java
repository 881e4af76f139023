package dev.seqvfs.tests.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.fuse.FuseMount;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Specifies that advisory locks taken through the FUSE mount behave as on the host's tmpfs, across
 * processes and threads: each case's script (the {@link CloseRaceDifferentialTest} line protocol)
 * runs on a {@code hostops} chrooted into {@code /dev/shm} and on one chrooted into the mount, and
 * the answers must be equal line by line. A POSIX lock of a forked child (another process, same
 * uid) must conflict with the parent's: the engine sees one lock owner per FUSE {@code lock_owner},
 * not one per credentials.
 */
class MountLockDifferentialTest {
    private static SeqVfs vfs;
    private static FuseMount mount;
    private static Path mountPoint;

    @BeforeAll
    static void mountIt() throws Exception {
        String why = HostKernel.unavailableReason();
        Assumptions.assumeTrue(why == null, why);
        mountPoint = Files.createTempDirectory("seqvfs-fuse-locks-");
        vfs = SeqVfs.create(FuseMount.engineConfig(ConfigFactory.load()));
        mount = FuseMount.mount(vfs, mountPoint, List.of());
    }

    @AfterAll
    static void unmountIt() throws Exception {
        if (mount == null) {
            return;
        }
        try {
            mount.close();
            assertEquals(List.of(), Fsck.check(vfs, true));
        } finally {
            vfs.close();
            Files.deleteIfExists(mountPoint);
        }
    }

    /** The scripts; {@code f} is a file the script makes and removes. */
    enum Script {
        /** Another process's write lock makes ours EAGAIN; once it exits, ours is granted. */
        POSIX_OTHER_PROCESS(
                "OPEN -100 " + HostSide.arg("f") + " 66 420",
                "=a",
                "CHILDLOCK " + HostSide.arg("f") + " 1 0 0",
                "SETLK $a 6 0 0 0",
                "SETLK $a 5 0 0 0",
                "CHILDUNLOCK",
                "SETLK $a 6 1 0 0",
                "CLOSE $a",
                "UNLINK -100 " + HostSide.arg("f") + " 0"),
        /** Our lock makes a child's EAGAIN; closing any descriptor of the file drops it. */
        POSIX_CLOSE_OF_ANOTHER_DESCRIPTOR_DROPS_THE_LOCK(
                "OPEN -100 " + HostSide.arg("f") + " 66 420",
                "=a",
                "OPEN -100 " + HostSide.arg("f") + " 2 0",
                "=b",
                "SETLK $a 6 1 0 10",
                "CHILDLOCK " + HostSide.arg("f") + " 1 5 1",
                "CHILDUNLOCK",
                "CLOSE $b",
                "CHILDLOCK " + HostSide.arg("f") + " 1 5 1",
                "CHILDUNLOCK",
                "CLOSE $a",
                "UNLINK -100 " + HostSide.arg("f") + " 0"),
        /** Byte ranges: a child's lock on bytes 0-9 leaves bytes 10- free. */
        POSIX_RANGES(
                "OPEN -100 " + HostSide.arg("f") + " 66 420",
                "=a",
                "CHILDLOCK " + HostSide.arg("f") + " 1 0 10",
                "SETLK $a 6 1 10 10",
                "SETLK $a 6 1 9 2",
                "CHILDUNLOCK",
                "CLOSE $a",
                "UNLINK -100 " + HostSide.arg("f") + " 0"),
        /**
         * flock belongs to the open file description: two opens of one process conflict. (No
         * close-then-lock step: the kernel's FUSE client sends the release, and with it the flock
         * unlock, after close(2) has returned; README, "Mount it".)
         */
        FLOCK_TWO_DESCRIPTIONS(
                "OPEN -100 " + HostSide.arg("f") + " 66 420",
                "=a",
                "OPEN -100 " + HostSide.arg("f") + " 2 0",
                "=b",
                "FLOCK $a 2",
                "FLOCK $b 6",
                "FLOCK $b 5",
                "FLOCK $a 8",
                "FLOCK $b 6",
                "FLOCK $a 5",
                "FLOCK $b 8",
                "FLOCK $a 6",
                "CLOSE $b",
                "CLOSE $a",
                "UNLINK -100 " + HostSide.arg("f") + " 0");

        final List<String> lines;

        Script(String... lines) {
            this.lines = List.of(lines);
        }
    }

    @ParameterizedTest
    @EnumSource(Script.class)
    void locks_throughTheMount_matchTheHost(Script s) throws Exception {
        List<String> host;
        try (HostSide h = new HostSide()) {
            host = CloseRaceDifferentialTest.run(s.lines, h::call, id -> "O " + awaitOn(h, id));
        }
        Path sandbox = Files.createTempDirectory(mountPoint, "locks-");
        List<String> viaMount;
        try (HostSide m = new HostSide(sandbox)) {
            viaMount = CloseRaceDifferentialTest.run(s.lines, m::call, id -> "O " + awaitOn(m, id));
        } finally {
            Files.deleteIfExists(sandbox);
        }
        assertEquals(host, viaMount, s + ": answers, line by line, host against the mount");
    }

    private static int awaitOn(HostSide h, int id) {
        return CloseRaceDifferentialTest.awaitHost(h, id);
    }
}
