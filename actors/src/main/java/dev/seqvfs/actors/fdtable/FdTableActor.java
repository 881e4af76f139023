package dev.seqvfs.actors.fdtable;

import dev.seqvfs.protocol.Errno;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * The only writer of one descriptor table: allocates the lowest free descriptor and
 * installs the file in the same message (seed 002's point: no second trip to the table),
 * closes, and publishes each change as one new {@link FdTable} with release.
 *
 * <h2>Concurrency</h2>
 * One message at a time; never blocks. Readers use {@link FilesStruct#tableAcquire()}.
 * An {@link Install} owns the reference it carries: if it fails ({@code EMFILE}) the
 * actor releases it, so no failure leaks an open file.
 *
 * <h2>Supervision</h2>
 * {@code SupervisorStrategy.resume()}: the state is the published table, which a handler
 * replaces only as its last step. On stop, every open file still in the table is released.
 */
public final class FdTableActor extends AbstractBehavior<FdTableActor.Command> {
    /** A message to a descriptor table. */
    public sealed interface Command {
    }

    /**
     * Allocates the lowest free descriptor {@code >= minFd} and installs {@code file} there.
     *
     * @param file the open file; this command owns one reference to it
     * @param cloexec {@code FD_CLOEXEC}
     * @param minFd lowest acceptable descriptor (0 for open; the argument of {@code F_DUPFD})
     * @param replyTo where the {@link FdReply} goes
     */
    public record Install(OpenFile file, boolean cloexec, int minFd, ActorRef<FdReply> replyTo) implements Command {
    }

    /**
     * Closes {@code fd} and drops the table's reference to its open file.
     *
     * @param fd the descriptor
     * @param replyTo where the reply goes ({@code EBADF} if not open)
     */
    public record Close(int fd, ActorRef<FdReply> replyTo) implements Command {
    }

    /**
     * Closes every descriptor ({@code exit}), releasing their open files, and replies once
     * they are released. The table stays usable (it is empty).
     *
     * @param replyTo where the reply goes (its fd is the number of descriptors closed)
     */
    public record CloseAll(ActorRef<FdReply> replyTo) implements Command {
    }

    private final FilesStruct files;

    private FdTableActor(ActorContext<Command> ctx, FilesStruct files) {
        super(ctx);
        this.files = files;
    }

    /** Returns the behavior of the actor owning {@code files}, supervised with resume. */
    public static Behavior<Command> create(FilesStruct files) {
        return Behaviors.supervise(Behaviors.<Command>setup(ctx -> new FdTableActor(ctx, files)))
                .onFailure(SupervisorStrategy.resume());
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Install.class, this::onInstall)
                .onMessage(Close.class, this::onClose)
                .onMessage(CloseAll.class, this::onCloseAll)
                .onSignal(PostStop.class, s -> onPostStop())
                .build();
    }

    private Behavior<Command> onInstall(Install m) {
        FdTable t = files.tableAcquire();
        int fd = t.lowestFree(Math.max(0, m.minFd()));
        if (fd >= files.rlimitNofile()) {
            m.file().release();
            m.replyTo().tell(FdReply.error(Errno.EMFILE));
            return this;
        }
        files.publishRelease(t.with(fd, new FdTable.Entry(m.file(), m.cloexec())));
        m.replyTo().tell(FdReply.ok(fd, m.file()));
        return this;
    }

    private Behavior<Command> onClose(Close m) {
        FdTable t = files.tableAcquire();
        FdTable.Entry e = t.get(m.fd());
        if (e == null) {
            m.replyTo().tell(FdReply.error(Errno.EBADF));
            return this;
        }
        files.publishRelease(t.without(m.fd()));
        e.file().release();
        m.replyTo().tell(FdReply.ok(m.fd(), e.file()));
        return this;
    }

    private Behavior<Command> onCloseAll(CloseAll m) {
        int n = files.tableAcquire().count();
        onPostStop();
        m.replyTo().tell(FdReply.ok(n, null));
        return this;
    }

    private Behavior<Command> onPostStop() {
        FdTable t = files.tableAcquire();
        for (int fd : t.openFds()) {
            t.get(fd).file().release();
        }
        files.publishRelease(FdTable.empty());
        return this;
    }
}
