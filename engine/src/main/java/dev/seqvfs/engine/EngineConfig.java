package dev.seqvfs.engine;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigOrigin;
import com.typesafe.config.ConfigValue;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An engine's configuration as {@link SeqVfs} uses it: the caller's settings resolved over SeqVFS's
 * Pekko settings ({@code seqvfs-pekko.conf}) and every {@code reference.conf}, read into a {@link
 * VfsConfig}, with the key of the actor system it may share ({@link SharedSystems.Key}).
 *
 * <p>Resolving a configuration over Pekko's defaults costs about half a millisecond, as much as the
 * rest of a fresh instance, so the last {@value #CACHED} distinct caller configurations are kept,
 * compared by value ({@link ConfigObject#equals}): a test suite that creates an instance per test
 * with the same settings resolves them once. A {@link Config} is immutable, so a kept one never
 * goes stale (as with {@code ConfigFactory.load()}'s own cache, a change of the files on the
 * classpath during the run is not seen).
 *
 * <p>Thread-safe: the cache is guarded by its own monitor, held for a lookup or an insert, never
 * while resolving; the last hit, and {@link #defaultApplication()}'s result, are immutable records
 * published through volatile fields (a racing reader sees an older one or a newer one, both right).
 *
 * @param full the whole resolved configuration (the actor system's, when it starts one)
 * @param vfs the {@code seqvfs} section, read
 * @param systemKey which shared actor system it runs in
 * @param linger {@code seqvfs.actor-system.linger}
 */
record EngineConfig(Config full, VfsConfig vfs, SharedSystems.Key systemKey, Duration linger) {
    /** How many distinct caller configurations are kept. */
    static final int CACHED = 32;

    /** SeqVFS's Pekko settings ({@code seqvfs-pekko.conf}), parsed once. */
    static final Config PEKKO_SETTINGS =
            ConfigFactory.parseResources(SeqVfs.class.getClassLoader(), "seqvfs-pekko.conf");

    /**
     * Returns {@code config} without the values, at the paths {@code settings} sets, that came from
     * a {@code reference.conf}: a configuration made by {@code ConfigFactory.load()} already holds
     * Pekko's reference defaults ({@code jvm-exit-on-fatal-error = on}, a JVM shutdown hook), which
     * would otherwise win over SeqVFS's settings as if the embedder had chosen them. A value the
     * embedder set ({@code application.conf}, a system property, a parsed string) has another
     * origin and stays, and wins.
     */
    static Config withoutReferenceDefaults(Config config, Config settings) {
        Config out = config;
        for (Map.Entry<String, ConfigValue> e : settings.entrySet()) {
            String path = e.getKey();
            try {
                if (config.hasPath(path) && fromReference(config.getValue(path).origin())) {
                    out = out.withoutPath(path);
                }
            } catch (ConfigException.NotResolved unresolved) {
                // A substitution the embedder wrote: theirs, kept as it is.
            }
        }
        return out;
    }

    private static boolean fromReference(ConfigOrigin o) {
        String r = o.resource();
        if (r == null && o.url() != null) {
            r = o.url().getPath();
        }
        return r != null && (r.equals("reference.conf") || r.endsWith("/reference.conf"));
    }

    private static final Map<ConfigObject, EngineConfig> CACHE =
            new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<ConfigObject, EngineConfig> eldest) {
                    return size() > CACHED;
                }
            };

    /**
     * The last configuration asked for and its result, compared by identity before the cache's
     * value hash.
     */
    private record Last(ConfigObject input, EngineConfig made) {}

    private static volatile Last last;

    /** {@link #defaultApplication()}'s result and the system-properties object it was made from. */
    private record Defaults(ConfigObject overrides, Config config) {}

    private static volatile Defaults defaults;

    /**
     * Returns {@code SeqVfs.create()}'s configuration: system properties over {@code
     * application.conf} ({@code ConfigFactory.defaultOverrides()} over {@code
     * ConfigFactory.defaultApplication()}). Parsed once and reused for as long as Typesafe Config's
     * own system-properties object is the same one (it is replaced by {@code
     * ConfigFactory.invalidateCaches()}), as {@code ConfigFactory.load()} caches its result:
     * looking {@code application.conf} up on the classpath at every creation cost more than the
     * rest of the configuration.
     */
    static Config defaultApplication() {
        ConfigObject overrides = ConfigFactory.defaultOverrides().root();
        Defaults d = defaults;
        if (d != null && d.overrides() == overrides) {
            return d.config();
        }
        Config made = overrides.toConfig().withFallback(ConfigFactory.defaultApplication());
        defaults = new Defaults(overrides, made);
        return made;
    }

    /**
     * Returns {@code config} layered over {@code seqvfs-pekko.conf} and every {@code
     * reference.conf}, resolved and read (from the cache when an equal configuration was resolved
     * before).
     *
     * @throws com.typesafe.config.ConfigException if the configuration is invalid
     */
    static EngineConfig of(Config config) {
        ConfigObject input = config.root();
        Last l = last;
        if (l != null && l.input() == input) {
            return l.made();
        }
        // The key is the configuration without the reference defaults it carries: two
        // configurations equal in value but not in where a Pekko setting came from (an
        // embedder's explicit value against Pekko's default) resolve differently.
        Config own = withoutReferenceDefaults(config, PEKKO_SETTINGS);
        ConfigObject key = own.root();
        EngineConfig made;
        synchronized (CACHE) {
            made = CACHE.get(key);
        }
        if (made == null) {
            made =
                    read(
                            own.withFallback(PEKKO_SETTINGS)
                                    .withFallback(ConfigFactory.defaultReference())
                                    .resolve());
            synchronized (CACHE) {
                CACHE.put(key, made);
            }
        }
        last = new Last(input, made);
        return made;
    }

    /**
     * Returns {@code config} layered over an embedder's system configuration and SeqVFS's defaults,
     * resolved and read (not cached: the system's configuration is large and the embedder's own).
     *
     * @throws com.typesafe.config.ConfigException if the configuration is invalid
     */
    static EngineConfig over(Config config, Config systemConfig) {
        return read(
                config.withFallback(systemConfig)
                        .withFallback(ConfigFactory.defaultReference())
                        .resolve());
    }

    private static EngineConfig read(Config full) {
        VfsConfig vfs = VfsConfig.from(full);
        return new EngineConfig(
                full,
                vfs,
                new SharedSystems.Key(full, vfs.dispatcher()),
                full.getDuration("seqvfs.actor-system.linger"));
    }
}
