package dev.seqvfs.engine;

import dev.seqvfs.engine.fdtable.FdReply;
import dev.seqvfs.engine.fdtable.FdTableActor;
import dev.seqvfs.engine.fdtable.FilesStruct;
import dev.seqvfs.engine.fdtable.InstallClaim;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A descriptor reserved for one {@code open} in progress ({@code get_unused_fd_flags}): taken
 * before the open changes anything (creates, truncates), then either filled with the open file
 * ({@link #install}, {@code fd_install}) or given back ({@link #release}, {@code put_unused_fd}).
 * See {@link FdTableActor.Reserve}.
 *
 * <p>A reservation is named (a {@link FdTableActor.Reserve} message chose its descriptor) or
 * unnamed: a credit taken from the table's pool without a message ({@link
 * FilesStruct#tryTakeCredit}), whose descriptor is chosen when it installs ({@link
 * FdTableActor.InstallClaimed}) and which is given back to the pool, again without a message.
 * {@link #reserve} and {@link #reserveBlocking} take a credit when the pool has one and reserve by
 * name otherwise, so an open far from {@code RLIMIT_NOFILE} sends the table one message (the
 * install), as before reservations existed.
 *
 * <h2>States</h2>
 *
 * held → handed over (an {@link FdTableActor.InstallReserved} was sent: the table's actor now ends
 * the reservation, installing or not), or held → released (an {@link FdTableActor.Unreserve} was
 * sent). One compare-and-set decides, so a reservation ends exactly once whichever failure paths
 * race to release it, and a late release never frees a descriptor the table has since given to
 * someone else.
 *
 * <h2>Concurrency</h2>
 *
 * {@code state} is an atomic; everything else is final. Sends messages, never blocks except in
 * {@link #reserveBlocking} (the blocking {@code open}, on its own thread).
 */
final class FdReservation {
    private static final int HELD = 0;
    private static final int HANDED_OVER = 1;
    private static final int RELEASED = 2;

    /** {@link #fd} of an unnamed reservation (a credit). */
    static final int UNNAMED = -1;

    private final Asker asker;
    private final FilesStruct files;
    private final int fd;
    private final AtomicInteger state = new AtomicInteger(HELD);

    private FdReservation(Asker asker, FilesStruct files, int fd) {
        this.asker = asker;
        this.files = files;
        this.fd = fd;
    }

    /**
     * Reserves a descriptor of {@code files}: a credit if the pool has one (then the future is
     * already complete), else the lowest free descriptor by message.
     *
     * @return the reservation's future; it fails with {@code EMFILE} when the table is full
     *     (nothing reserved), or with the ask's failure (then the table's actor undoes the
     *     reservation when its reply finds nobody waiting)
     */
    static CompletableFuture<FdReservation> reserve(
            Asker asker, FilesStruct files, CharSequence path) {
        if (files.tryTakeCredit()) {
            return CompletableFuture.completedFuture(new FdReservation(asker, files, UNNAMED));
        }
        return reserveNamed(asker, files, path);
    }

    /**
     * Reserves the lowest free descriptor of {@code files} by message ({@link
     * FdTableActor.Reserve}), never from the credit pool.
     *
     * @return the reservation's future, as {@link #reserve}'s
     */
    static CompletableFuture<FdReservation> reserveNamed(
            Asker asker, FilesStruct files, CharSequence path) {
        return ask(asker, files).thenApply(r -> of(asker, files, r, path));
    }

    /**
     * Reserves a descriptor, waiting on the calling thread if it takes a message: a credit if the
     * pool has one, else the lowest free descriptor by name.
     *
     * @throws VfsException {@code EMFILE} when the table is full; {@code EIO}/{@code EINTR} if the
     *     wait gave up (a reply that comes later is undone)
     */
    static FdReservation reserveBlocking(Asker asker, FilesStruct files, CharSequence path) {
        if (files.tryTakeCredit()) {
            return new FdReservation(asker, files, UNNAMED);
        }
        return reserveNamedBlocking(asker, files, path);
    }

    /**
     * Reserves the lowest free descriptor by message, waiting on the calling thread.
     *
     * @throws VfsException as {@link #reserveBlocking}
     */
    static FdReservation reserveNamedBlocking(Asker asker, FilesStruct files, CharSequence path) {
        CompletableFuture<FdReply> f = ask(asker, files);
        FdReply r;
        try {
            r = asker.join(f, Syscall.OPEN, path);
        } catch (VfsException e) {
            // Gave up waiting: whenever the reservation comes, give it back.
            var unused =
                    f.thenAccept(
                            late -> {
                                if (late.error() == null) {
                                    files.commands().tell(new FdTableActor.Unreserve(late.fd()));
                                }
                            });
            throw e;
        }
        return of(asker, files, r, path);
    }

    private static CompletableFuture<FdReply> ask(Asker asker, FilesStruct files) {
        return asker.ask(files.commands(), (ReplyTo<FdReply> r) -> new FdTableActor.Reserve(r));
    }

    private static FdReservation of(Asker asker, FilesStruct files, FdReply r, CharSequence path) {
        if (r.error() != null) {
            throw new VfsException(r.error(), Syscall.OPEN, path);
        }
        return new FdReservation(asker, files, r.fd());
    }

    /** {@return the reserved descriptor; {@link #UNNAMED} for a credit (chosen at install)} */
    int fd() {
        return fd;
    }

    /**
     * Installs {@code file} on the reserved descriptor, under {@code claim} (an asynchronous
     * open's; {@code null} for the blocking one). The reservation is handed over: whatever the
     * reply says, the table's actor has ended it.
     *
     * @param file the open file; this call owns (and hands over) one reference to it
     * @return the descriptor's future; {@code EINTR} if the open was withdrawn first
     * @throws IllegalStateException if the reservation already ended (the file is released)
     */
    CompletableFuture<Integer> install(
            OpenFile file, boolean cloexec, InstallClaim claim, CharSequence path) {
        if (!state.compareAndSet(HELD, HANDED_OVER)) {
            file.release();
            throw new IllegalStateException(
                    "install into descriptor " + fd + " after its reservation ended");
        }
        return asker.ask(
                        files.commands(),
                        (ReplyTo<FdReply> r) ->
                                fd == UNNAMED
                                        ? new FdTableActor.InstallClaimed(file, cloexec, r, claim)
                                        : new FdTableActor.InstallReserved(
                                                fd, file, cloexec, r, claim))
                .thenApply(
                        r -> {
                            if (r.error() != null) {
                                throw new VfsException(r.error(), Syscall.OPEN, path);
                            }
                            return r.fd();
                        });
    }

    /** Gives the descriptor back unless it was handed over or given back already. Idempotent. */
    void release() {
        if (state.compareAndSet(HELD, RELEASED)) {
            if (fd == UNNAMED) {
                files.returnCredit();
            } else {
                files.commands().tell(new FdTableActor.Unreserve(fd));
            }
        }
    }

    @Override
    public String toString() {
        return "FdReservation["
                + (fd == UNNAMED ? "credit" : fd)
                + ", "
                + switch (state.get()) {
                    case HELD -> "held";
                    case HANDED_OVER -> "handed over";
                    default -> "released";
                }
                + "]";
    }
}
