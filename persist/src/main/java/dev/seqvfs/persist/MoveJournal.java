package dev.seqvfs.persist;

import dev.seqvfs.engine.dir.DirJournal;
import dev.seqvfs.engine.dir.RenameJournal;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * persistfs's {@link RenameJournal}: a move between two directories is written as two halves, the
 * target parent's {@link DirEvent.EntryMovedIn} first (it names the source, so it is also the
 * move's intent), then, once that is durable, the source parent's {@link DirEvent.EntryMovedOut};
 * the callback runs when both are durable. A {@link DirEvent.MoveSettled} then goes to the target
 * parent without being waited for. Recovery rolls forward a move whose first half is durable and
 * whose second is not ({@link PersistfsType}); a crash before the first half loses the move whole.
 *
 * <p>Why not a third journal of intents: the first half already is one, and the two writes the move
 * then costs are what an intent and one write of both halves would cost (two commits in turn), with
 * nothing to keep in step.
 *
 * <p>Thread-safe (immutable); {@link #append} never blocks.
 */
final class MoveJournal implements RenameJournal {
    private static final Logger LOG = LoggerFactory.getLogger(MoveJournal.class);

    private final PersistfsOps ops;

    MoveJournal(PersistfsOps ops) {
        this.ops = ops;
    }

    @Override
    public void append(Move m, DirJournal.Done done) {
        long id = ops.nextRename();
        EntryRecord source = EntityJournal.record(m.source());
        Inode t = m.target();
        EntryRecord target = t == null ? null : EntityJournal.record(t);
        // what the source name binds after the move: the exchanged inode or the whiteout
        EntryRecord left =
                m.exchange()
                        ? target
                        : m.whiteout() == null ? null : EntityJournal.record(m.whiteout());
        EntryRecord replaced = null;
        boolean lastName = false;
        if (!m.exchange() && t != null && t.type() != FileType.DIRECTORY) {
            if (t.attrsAcquire().nlink() > 0) {
                replaced = target;
            } else {
                lastName = true; // a row of its attributes, if any, goes with it
            }
        }
        DirEvent in =
                new DirEvent.EntryMovedIn(
                        m.newName(), source, id, m.oldDir().ino(), m.oldName(), replaced, left);
        DirEvent out = new DirEvent.EntryMovedOut(m.oldName(), id, left);
        long to = m.newDir().ino();
        long from = m.oldDir().ino();
        List<DirEvent> ins = new ArrayList<>(3);
        if (!m.exchange() && t != null && t.type() == FileType.DIRECTORY) {
            // a rename over an empty directory removes it: what its journal held comes here
            DirEvent h = ops.inheritKeptUnlinked(t.ino(), to);
            if (h != null) {
                ins.add(h);
            }
        }
        if (replaced != null) {
            ops.keptUnlinked(to, replaced);
        }
        boolean freed = lastName;
        long victim = t == null ? 0 : t.ino();
        // each half with its parent's new times (mtime, ctime), as a batch of the parent's own
        ins.add(in);
        ins.add(new DirEvent.AttrsChanged(null, EntityJournal.record(m.newDir())));
        List<DirEvent> outs =
                List.of(out, new DirEvent.AttrsChanged(null, EntityJournal.record(m.oldDir())));
        ops.append(to, ins)
                .thenCompose(x -> ops.append(from, outs))
                // durable at return in every mode: a lazy journal (async on the log) is forced
                // (the log's order keeps the first half before the second)
                .thenCompose(x -> ops.store.forceAsync())
                .whenComplete(
                        (ok, failure) -> {
                            if (failure == null) {
                                ops.entity(to)
                                        .tell(
                                                new DirectoryEntity.Append(
                                                        List.of(new DirEvent.MoveSettled(id)),
                                                        ops.system.ignoreRef()));
                                if (freed) {
                                    ops.lastNameDurablyRemoved(victim);
                                }
                            } else {
                                LOG.error(
                                        "persistfs {}: move {} not written: {}",
                                        ops.fsid,
                                        id,
                                        failure.toString());
                            }
                            done.done(failure == null ? null : Errno.EIO);
                        });
    }
}
