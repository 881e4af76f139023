package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.EngineInternals;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.WriterHooks;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Batches of one directory's actor ({@code DirQueue}) with failing commands at every position: many
 * threads create, link and unlink in one directory of a superblock whose inode limit they keep
 * hitting, so that {@code ENOSPC}, {@code EEXIST} and {@code ENOENT} fall inside batches beside
 * commands that succeed. A hook holds one batch in three unpublished for a few microseconds, so
 * that batches grow and their boundaries move. Each thread keeps a ledger of what the engine told
 * it ({@code mknod(2)}, {@code link(2)}, {@code unlink(2)}, {@code statfs(2)}); afterwards the
 * directory lists exactly the ledgers' names, {@code statfs} counts exactly their inodes and extra
 * links, and once everything is removed it is back at its starting figures.
 *
 * <pre>
 * /d/T_N     thread T's files; /d/T_N.l hard links to them (each costs an inode, as on tmpfs)
 * </pre>
 */
class DirectoryBatchFailuresTest {
    /** Inodes of the superblock: the root, /d, and {@value #ROOM} for the threads to fight over. */
    private static final int ROOM = 40;

    @RegisterExtension
    final VfsFixture fs =
            new VfsFixture("seqvfs.tmpfs.max-inodes = " + (ROOM + 2)).checkingEndState();

    @Test
    void failuresInsideBatches_leaveTheOthersApplied_andEveryCallerAnsweredRight() {
        VfsTask root = fs.root();
        root.mkdir("/d", 0755);
        StatFs before = root.statfs("/");
        EngineInternals.installRootHooks(
                fs.vfs(),
                new WriterHooks() {
                    @Override
                    public void batchStaged(Inode dir, int commands) {
                        if (ThreadLocalRandom.current().nextInt(3) == 0) {
                            LockSupport.parkNanos(5_000);
                        }
                    }
                });
        int n = Stress.threads();
        Set<String> ledger = ConcurrentHashMap.newKeySet();
        LongAdder enospc = new LongAdder();
        LongAdder eexist = new LongAdder();
        LongAdder enoent = new LongAdder();
        LongAdder ok = new LongAdder();
        List<Stress.Worker> workers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final int id = i;
            workers.add(
                    c -> {
                        VfsTask t = fs.vfs().newTask(Credentials.ROOT);
                        ThreadLocalRandom r = ThreadLocalRandom.current();
                        List<String> mine = new ArrayList<>();
                        long seq = 0;
                        while (c.running()) {
                            int dice = r.nextInt(10);
                            String name;
                            try {
                                if (dice < 4 || mine.isEmpty()) {
                                    name = id + "_" + seq++;
                                    t.mknod("/d/" + name, Mode.S_IFREG | 0644, 0);
                                    mine.add(name);
                                } else if (dice == 4) {
                                    // a name that is there: EEXIST, whatever the batch holds
                                    name = mine.get(r.nextInt(mine.size()));
                                    t.mknod("/d/" + name, Mode.S_IFREG | 0644, 0);
                                    throw new AssertionError("created " + name + " twice");
                                } else if (dice == 5) {
                                    // a name never made: ENOENT
                                    t.unlink("/d/" + id + "_never");
                                    throw new AssertionError("unlinked a name never made");
                                } else if (dice == 6) {
                                    String src = mine.get(r.nextInt(mine.size()));
                                    if (src.endsWith(".l") || mine.contains(src + ".l")) {
                                        continue;
                                    }
                                    t.link("/d/" + src, "/d/" + src + ".l");
                                    mine.add(src + ".l");
                                } else {
                                    name = mine.remove(r.nextInt(mine.size()));
                                    t.unlink("/d/" + name);
                                }
                                ok.increment();
                            } catch (VfsException e) {
                                if (e.errno() == Errno.ENOSPC) {
                                    enospc.increment();
                                } else if (e.errno() == Errno.EEXIST && dice == 4) {
                                    eexist.increment();
                                } else if (e.errno() == Errno.ENOENT && dice == 5) {
                                    enoent.increment();
                                } else {
                                    throw e;
                                }
                            }
                        }
                        ledger.addAll(mine);
                    });
        }
        Stress.run(Stress.sliceNanos(), workers);
        EngineInternals.installRootHooks(fs.vfs(), null);
        long[] batches = EngineInternals.rootDirBatches(fs.vfs(), "d");
        System.out.printf(
                "batch failures: %d ok, %d ENOSPC, %d EEXIST, %d ENOENT; %d batches, %d of more"
                        + " than one command%n",
                ok.sum(), enospc.sum(), eexist.sum(), enoent.sum(), batches[0], batches[1]);
        assertTrue(enospc.sum() > 0 && eexist.sum() > 0 && enoent.sum() > 0, "a failure never ran");
        assertTrue(batches[1] > 0, "no two commands ever shared a batch");

        Set<String> names = new HashSet<>();
        for (DirEntry e : root.readdir("/d")) {
            names.add(e.name());
        }
        assertEquals(ledger, names, "/d lists exactly what its callers were told");
        StatFs during = root.statfs("/");
        assertEquals(
                before.ffree() - ledger.size(),
                during.ffree(),
                "statfs counts every name left (an inode or an extra link) exactly once");
        for (String name : ledger) {
            root.unlink("/d/" + name);
        }
        assertEquals(before, root.statfs("/"), "statfs back at its starting figures");
    }
}
