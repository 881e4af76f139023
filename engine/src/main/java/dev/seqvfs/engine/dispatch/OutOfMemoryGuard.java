package dev.seqvfs.engine.dispatch;

import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps an {@link OutOfMemoryError} thrown by an actor's handler inside the actor: the message is
 * dropped (logged) and the actor goes on with the behavior it had. Pekko treats the error as fatal
 * (supervision handles only non-fatal throwables): left alone it reaches the dispatcher's thread
 * and shuts the whole actor system down, wedging every instance in it until the JVM exits. A heap
 * that ran out is usually a moment's state (a large write elsewhere, freed once its caller gets
 * {@code ENOMEM}), so the engine keeps serving once memory is back.
 *
 * <p>Handlers that can answer do so first: a directory actor catches the error in its own handler
 * and answers {@code ENOMEM} (its change is published last, so nothing is half-applied); this guard
 * is the net under everything else, whose sender then sees its ask time out ({@code EIO}).
 *
 * <p>Stateless and thread-safe; one instance serves every actor. Source: none in Linux (a kernel
 * allocation failure returns {@code -ENOMEM} to the caller); the rule follows issue 17's "the JVM
 * is never harmed".
 *
 * @param <T> the actor's message type
 */
public final class OutOfMemoryGuard<T> extends BehaviorInterceptor<T, T> {
    private static final Logger LOG = LoggerFactory.getLogger(OutOfMemoryGuard.class);

    private static final OutOfMemoryGuard<Object> INSTANCE = new OutOfMemoryGuard<>();

    @SuppressWarnings("unchecked") // every message is intercepted, whatever T is
    private OutOfMemoryGuard() {
        super((Class<T>) (Class<?>) Object.class);
    }

    /**
     * {@return {@code behavior} with its out-of-memory errors kept inside the actor}
     *
     * @param behavior the actor's behavior
     * @param <T> the actor's message type
     */
    @SuppressWarnings("unchecked") // stateless: one instance fits every message type
    public static <T> Behavior<T> guard(Behavior<T> behavior) {
        return Behaviors.intercept(
                () -> (OutOfMemoryGuard<T>) (OutOfMemoryGuard<?>) INSTANCE, behavior);
    }

    @Override
    public Behavior<T> aroundReceive(
            TypedActorContext<T> ctx, T msg, BehaviorInterceptor.ReceiveTarget<T> target) {
        try {
            return target.apply(ctx, msg);
        } catch (OutOfMemoryError e) {
            dropped(ctx, msg.getClass().getSimpleName());
            return Behaviors.same();
        }
    }

    @Override
    public Behavior<T> aroundSignal(
            TypedActorContext<T> ctx, Signal signal, BehaviorInterceptor.SignalTarget<T> target) {
        try {
            return target.apply(ctx, signal);
        } catch (OutOfMemoryError e) {
            dropped(ctx, signal.getClass().getSimpleName());
            return Behaviors.same();
        }
    }

    private static void dropped(TypedActorContext<?> ctx, String what) {
        try {
            LOG.error("{} ran out of memory handling {}; dropped", ctx.asJava().getSelf(), what);
        } catch (OutOfMemoryError again) {
            // Not even the log line fits: the message is dropped all the same.
        }
    }
}
