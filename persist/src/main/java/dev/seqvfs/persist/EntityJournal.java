package dev.seqvfs.persist;

import dev.seqvfs.engine.dir.DirJournal;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.SymlinkInode;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One directory's {@link DirJournal}: turns the changes its actor published into {@link DirEvent}s
 * (reading each inode's attributes as it goes, on the actor's thread, right after the publication)
 * and sends them to the directory's {@link DirectoryEntity} as one {@link DirectoryEntity.Append}.
 * A batch that bound or removed a name ends with the directory's own attributes ({@link
 * DirEvent.AttrsChanged} without a name): its {@code mtime} and {@code ctime} moved, and a remount
 * must show them as they were, not as of the mount. The attributes of a file unlinked here that
 * keeps other names go with its {@link DirEvent.EntryRemoved}; when a subdirectory is removed, the
 * ones its journal held come here first ({@link DirEvent.UnlinkedInherited}). The callback runs
 * when the entity answers ({@code null}: durable) or when {@code write-timeout} passes first
 * ({@code EIO}).
 *
 * <p>Thread-safe (immutable); {@link #append} never blocks.
 */
final class EntityJournal implements DirJournal {
    private static final Logger LOG = LoggerFactory.getLogger(EntityJournal.class);

    /**
     * On an {@code async} mount, events that may wait behind a directory's journal write before its
     * callers are held back until it catches up.
     */
    static final int ASYNC_BACKLOG = 4 * JournalQueue.MAX_EVENTS;

    private final DirectoryInode dir;
    private final PersistfsOps ops;

    EntityJournal(DirectoryInode dir, PersistfsOps ops) {
        this.dir = dir;
        this.ops = ops;
    }

    /** {@return what the journal records of {@code inode} now} */
    static EntryRecord record(Inode inode) {
        InodeAttrs a = inode.attrsAcquire();
        return new EntryRecord(
                inode.ino(),
                a.mode(),
                a.uid(),
                a.gid(),
                a.rdev(),
                a.atime(),
                a.mtime(),
                a.ctime(),
                inode instanceof SymlinkInode s ? s.target() : null,
                EntryRecord.of(a.xattrs()));
    }

    @Override
    public void append(List<Change> changes, Done done) {
        List<DirEvent> events = new ArrayList<>(changes.size());
        List<Long> lastNames = null; // non-directories whose last name this batch removes
        boolean names = false; // whether the batch changed the directory's times
        for (Change c : changes) {
            names |= !(c instanceof Attrs);
            if (c instanceof Bound b) {
                events.add(new DirEvent.EntryAdded(b.name(), record(b.inode())));
            } else if (c instanceof Unbound u) {
                Inode i = u.inode();
                if (i instanceof DirectoryInode removed) {
                    DirEvent h = ops.inheritKeptUnlinked(removed.ino(), dir.ino());
                    if (h != null) {
                        events.add(h);
                    }
                }
                boolean kept =
                        i != null && i.type() != FileType.DIRECTORY && i.attrsAcquire().nlink() > 0;
                EntryRecord last = kept ? record(i) : null;
                if (last != null) {
                    ops.keptUnlinked(dir.ino(), last);
                }
                events.add(new DirEvent.EntryRemoved(u.name(), last));
                if (i != null && i.type() != FileType.DIRECTORY && !kept) {
                    if (lastNames == null) {
                        lastNames = new ArrayList<>();
                    }
                    lastNames.add(i.ino());
                }
            } else {
                Attrs a = (Attrs) c;
                events.add(new DirEvent.AttrsChanged(a.name(), record(a.inode())));
            }
        }
        if (names) {
            events.add(new DirEvent.AttrsChanged(null, record(dir)));
        }
        List<Long> gone = lastNames;
        // in async mode the callers are answered now, unless the journal is far behind (then
        // they wait, which holds the directory's actor back: a bounded backlog, never a drop)
        boolean early = ops.asyncNamespace() && ops.queue(dir.ino()).backlog() < ASYNC_BACKLOG;
        java.util.concurrent.CompletableFuture<Void> written =
                ops.append(dir.ino(), events).toCompletableFuture();
        if (early) {
            // an fsync of a file this batch named, or of anything below a directory it named,
            // waits for exactly this write (PersistfsOps.pathWritten)
            for (Change c : changes) {
                if (c instanceof Bound b) {
                    ops.namePending(b.inode().ino(), written);
                }
            }
        }
        written.whenComplete(
                (ok, failure) -> {
                    if (failure == null && gone != null) {
                        for (long ino : gone) {
                            ops.lastNameDurablyRemoved(ino);
                        }
                    }
                    if (failure != null) {
                        LOG.error(
                                "journal of directory {}: {} events not written: {}",
                                dir.ino(),
                                events.size(),
                                failure.toString());
                        if (early) {
                            ops.journalFailed(failure);
                        }
                    }
                    if (!early) {
                        done.done(failure == null ? null : Errno.EIO);
                    }
                });
        if (early) {
            done.done(null);
        }
    }
}
