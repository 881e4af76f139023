package dev.seqvfs.engine.fs;

import dev.seqvfs.engine.fs.hostfs.HostfsType;
import dev.seqvfs.engine.fs.proc.ProcType;
import dev.seqvfs.engine.fs.tmpfs.TmpfsType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;

/**
 * The file-system types one SeqVFS instance can mount ({@code register_filesystem}'s list): {@code
 * mount(2)} looks its {@code fstype} up here ({@code ENODEV} when absent). Immutable: {@link #with}
 * returns a new registry, so an instance's types are fixed when it is built.
 *
 * <p>Thread-safe (immutable).
 */
public final class FileSystemTypes {
    private static final FileSystemTypes DEFAULTS =
            new FileSystemTypes(Map.of())
                    .with(TmpfsType.INSTANCE)
                    .with(ProcType.INSTANCE)
                    .with(HostfsType.INSTANCE);

    private final Map<String, FileSystemType> byName;

    private FileSystemTypes(Map<String, FileSystemType> byName) {
        this.byName = byName;
    }

    /**
     * {@return the built-in types: {@code tmpfs}, {@code proc} and {@code hostfs}, in that order}
     */
    public static FileSystemTypes defaults() {
        return DEFAULTS;
    }

    /**
     * {@return the built-in types, then every type a module on the class path provides through
     * {@link ServiceLoader} ({@code META-INF/services/dev.seqvfs.engine.fs.FileSystemType}), in the
     * order the loader finds them} Linux's loadable file-system modules: the persistent type lives
     * in its own artifact ({@code seqvfs-persist}) and registers itself this way. A provided type
     * whose name is already taken is skipped (the first registration wins, as {@code
     * register_filesystem} refuses the second with {@code EBUSY}). Looked up each call; an instance
     * takes its registry once, when it is built.
     */
    public static FileSystemTypes installed() {
        FileSystemTypes t = DEFAULTS;
        for (FileSystemType provided :
                ServiceLoader.load(FileSystemType.class, FileSystemTypes.class.getClassLoader())) {
            if (t.get(provided.name()) == null) {
                t = t.with(provided);
            }
        }
        return t;
    }

    /**
     * {@return a registry with {@code type} added}
     *
     * @param type the type to add
     * @throws IllegalArgumentException if a type of that name is already registered ({@code
     *     register_filesystem}'s {@code EBUSY})
     */
    public FileSystemTypes with(FileSystemType type) {
        Objects.requireNonNull(type, "type");
        if (byName.containsKey(type.name())) {
            throw new IllegalArgumentException(
                    "file-system type " + type.name() + " is already registered");
        }
        Map<String, FileSystemType> m = new LinkedHashMap<>(byName);
        m.put(type.name(), type);
        return new FileSystemTypes(Collections.unmodifiableMap(m));
    }

    /**
     * {@return the type named {@code name}, or {@code null} ({@code get_fs_type})}
     *
     * @param name the type's name, as {@code mount(2)} gives it
     */
    public FileSystemType get(String name) {
        return name == null ? null : byName.get(name);
    }

    /** {@return every registered type, in registration order} */
    public List<FileSystemType> all() {
        return new ArrayList<>(byName.values());
    }
}
