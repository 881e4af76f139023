package dev.seqvfs.engine.dispatch;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.concurrent.ThreadFactory;
import org.apache.pekko.dispatch.DispatcherPrerequisites;
import org.apache.pekko.dispatch.ExecutorServiceConfigurator;
import org.apache.pekko.dispatch.ExecutorServiceFactory;
import org.apache.pekko.dispatch.ForkJoinExecutorConfigurator;

/**
 * Builds a {@link CallingThreadExecutor} for a Pekko dispatcher configured with {@code executor =
 * "dev.seqvfs.engine.dispatch.CallingThreadExecutorConfigurator"}.
 *
 * <p>Pekko instantiates this class reflectively with the whole dispatcher section (its {@code
 * (Config, DispatcherPrerequisites)} constructor). Keys read from that section:
 *
 * <ul>
 *   <li>{@code calling-thread-executor.inline} (default {@code on}): run mailboxes on the sending
 *       thread; {@code off} falls back to plain execution on the backing pool, exactly as {@code
 *       executor = "fork-join-executor"} would.
 *   <li>{@code calling-thread-executor.max-trampolined} (default {@code 64}): nested tasks a caller
 *       runs per outer call before handing further ones to the backing pool.
 *   <li>{@code fork-join-executor.*}: the backing pool, read by Pekko's own {@link
 *       ForkJoinExecutorConfigurator} (threads named after the dispatcher id).
 * </ul>
 *
 * A new executor, with a new backing pool, is made each time Pekko's dispatcher asks its factory
 * for one (after a dispatcher shutdown, the next use creates a fresh one).
 *
 * <p>Thread-safe: immutable after construction.
 */
public final class CallingThreadExecutorConfigurator extends ExecutorServiceConfigurator {

    /** Defaults for the {@code calling-thread-executor} section, which Pekko does not know. */
    private static final Config DEFAULTS =
            ConfigFactory.parseString("inline = on\nmax-trampolined = 64");

    private final boolean inline;
    private final int maxTrampolined;
    private final ForkJoinExecutorConfigurator backing;

    /**
     * Reads the keys listed in the class comment.
     *
     * @param config the dispatcher's configuration section
     * @param prerequisites what Pekko gives every configurator
     * @throws com.typesafe.config.ConfigException if a key has the wrong type
     * @throws IllegalArgumentException if {@code max-trampolined} is negative
     */
    public CallingThreadExecutorConfigurator(Config config, DispatcherPrerequisites prerequisites) {
        super(config, prerequisites);
        Config own =
                config.hasPath("calling-thread-executor")
                        ? config.getConfig("calling-thread-executor").withFallback(DEFAULTS)
                        : DEFAULTS;
        this.inline = own.getBoolean("inline");
        this.maxTrampolined = own.getInt("max-trampolined");
        if (maxTrampolined < 0) {
            throw new IllegalArgumentException(
                    "calling-thread-executor.max-trampolined must be >= 0: " + maxTrampolined);
        }
        this.backing =
                new ForkJoinExecutorConfigurator(
                        config.getConfig("fork-join-executor"), prerequisites);
    }

    /**
     * Returns a factory of calling-thread executors, or of plain pools when {@code inline = off}.
     */
    @Override
    public ExecutorServiceFactory createExecutorServiceFactory(
            String id, ThreadFactory threadFactory) {
        ExecutorServiceFactory pool = backing.createExecutorServiceFactory(id, threadFactory);
        if (!inline) {
            return pool;
        }
        int bound = maxTrampolined;
        return () -> new CallingThreadExecutor(pool.createExecutorService(), bound);
    }
}
