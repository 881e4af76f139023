package dev.seqvfs.tests.support;

import dev.seqvfs.engine.fs.FileSystemType;
import dev.seqvfs.engine.fs.FileSystemTypes;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.ClassTemplate;
import org.junit.jupiter.api.extension.ClassTemplateInvocationContext;
import org.junit.jupiter.api.extension.ClassTemplateInvocationContextProvider;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Marks a test class as a contract suite: JUnit runs the whole class (its nested classes included)
 * once per installed file-system type ({@link FileSystemTypes#installed()}: the built-in ones and
 * those a module on the test class path provides, persistfs among them), and every {@link
 * VfsFixture} in it builds instances whose root is a superblock of that type ({@code
 * seqvfs.root.type}). Test names carry the type: {@code [tmpfs]}.
 *
 * <p>{@code -Dseqvfs.contract.types=persistfs} (comma-separated names) runs the suites against
 * those types only.
 *
 * <p>Suites that build trees (almost all) run against every type that stores names; a suite that
 * only reads what a type shows sets {@link #virtualTypes()} and also runs against types whose names
 * are computed ({@link FileSystemType#FS_VIRTUAL}, procfs). Adding a type to the contract is
 * providing it ({@link FileSystemTypes#installed()}); nothing here names a type.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ClassTemplate
@ExtendWith(FileSystemContract.Types.class)
public @interface FileSystemContract {
    /** Whether the suite also applies to types whose names are computed, not stored. */
    boolean virtualTypes() default false;

    /** One invocation of the annotated class per applicable registered type. */
    final class Types implements ClassTemplateInvocationContextProvider {
        static final ExtensionContext.Namespace NS =
                ExtensionContext.Namespace.create(FileSystemContract.class);
        static final String KEY = "fs-type";

        /**
         * Returns the file-system type the current contract invocation runs against, or {@code
         * null} outside a contract suite.
         */
        public static String typeOf(ExtensionContext context) {
            return context.getStore(NS).get(KEY, String.class);
        }

        @Override
        public boolean supportsClassTemplate(ExtensionContext context) {
            return context.getRequiredTestClass().isAnnotationPresent(FileSystemContract.class);
        }

        @Override
        public Stream<ClassTemplateInvocationContext> provideClassTemplateInvocationContexts(
                ExtensionContext context) {
            boolean virtual =
                    context.getRequiredTestClass()
                            .getAnnotation(FileSystemContract.class)
                            .virtualTypes();
            List<FileSystemType> types = FileSystemTypes.installed().all();
            String only = System.getProperty("seqvfs.contract.types", "");
            List<String> chosen = only.isBlank() ? List.of() : List.of(only.split(","));
            return types.stream()
                    .filter(t -> chosen.isEmpty() || chosen.contains(t.name()))
                    .filter(t -> virtual || (t.flags() & FileSystemType.FS_VIRTUAL) == 0)
                    // the contracts mount read-write; a read-only type has its own suite
                    .filter(t -> (t.flags() & FileSystemType.FS_RDONLY) == 0)
                    .map(
                            t ->
                                    new ClassTemplateInvocationContext() {
                                        @Override
                                        public String getDisplayName(int invocationIndex) {
                                            return "[" + t.name() + "]";
                                        }

                                        @Override
                                        public void prepareInvocation(ExtensionContext invocation) {
                                            invocation.getStore(NS).put(KEY, t.name());
                                        }
                                    });
        }
    }
}
