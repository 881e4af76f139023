package dev.seqvfs.engine;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The engine's boundaries, enforced by the build (the seams issue, section 2): the public API an
 * embedder sees is {@code dev.seqvfs.engine} (five types) and {@code dev.seqvfs.protocol}; the SPI
 * a file-system type implements is {@code dev.seqvfs.engine.fs}; every other package is the
 * engine's own. The writers' mutation methods are reachable only from their writers:
 * package-private where the writer shares their package, and checked here where it cannot (a call
 * across packages). The call layer reaches files through {@code FileOperations} and types through
 * the registry: no {@code instanceof} on engine types, no name of a concrete type.
 */
class EngineBoundariesTest {
    private static JavaClasses engine;

    @BeforeAll
    static void importEngine() {
        engine =
                new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("dev.seqvfs.engine", "dev.seqvfs.protocol");
    }

    private static final DescribedPredicate<JavaClass> API_TYPES =
            DescribedPredicate.describe(
                    "an API, SPI, JDK or configuration type",
                    c -> {
                        String p = c.getPackageName();
                        return p.equals("dev.seqvfs.engine")
                                || p.startsWith("dev.seqvfs.protocol")
                                || p.equals("dev.seqvfs.engine.fs")
                                || p.startsWith("java.")
                                || c.isPrimitive()
                                || (c.isArray() && c.getBaseComponentType().isPrimitive())
                                || c.getName().equals("com.typesafe.config.Config")
                                || c.getName().equals("org.apache.pekko.actor.typed.ActorSystem");
                    });

    @Test
    void theApiPackage_exportsExactlyTheFiveApiTypes() {
        Set<String> pub = new TreeSet<>();
        for (JavaClass c : engine) {
            if (c.getPackageName().equals("dev.seqvfs.engine")
                    && c.getModifiers().contains(JavaModifier.PUBLIC)
                    && c.isTopLevelClass()) {
                pub.add(c.getSimpleName());
            }
        }
        assertEquals(
                new TreeSet<>(List.of("AsyncVfsTask", "Fsck", "LockOwner", "SeqVfs", "VfsTask")),
                pub);
    }

    @Test
    void apiSignatures_mentionOnlyApiSpiAndJdkTypes() {
        ArchRule rule =
                methods()
                        .that()
                        .areDeclaredInClassesThat()
                        .resideInAPackage("dev.seqvfs.engine")
                        .and()
                        .arePublic()
                        .and()
                        .areDeclaredInClassesThat()
                        .arePublic()
                        .should(
                                new ArchCondition<JavaMethod>(
                                        "take and return only API, SPI and JDK types") {
                                    @Override
                                    public void check(JavaMethod m, ConditionEvents events) {
                                        for (JavaClass t :
                                                m.getParameterTypes().stream()
                                                        .map(x -> x.toErasure())
                                                        .toList()) {
                                            if (!API_TYPES.test(t)) {
                                                events.add(
                                                        SimpleConditionEvent.violated(
                                                                m,
                                                                m.getFullName()
                                                                        + " takes "
                                                                        + t.getName()));
                                            }
                                        }
                                        JavaClass r = m.getRawReturnType();
                                        if (!API_TYPES.test(r)) {
                                            events.add(
                                                    SimpleConditionEvent.violated(
                                                            m,
                                                            m.getFullName()
                                                                    + " returns "
                                                                    + r.getName()));
                                        }
                                    }
                                });
        rule.check(engine);
    }

    /** A call to {@code owner.method} only from classes in {@code writers}. */
    private static ArchRule calledOnlyFrom(Class<?> owner, String method, String... writers) {
        return noClasses()
                .that(
                        DescribedPredicate.describe(
                                "a class that is not a writer of " + method,
                                (JavaClass c) -> {
                                    for (String w : writers) {
                                        if (c.getName().equals(w)
                                                || c.getName().startsWith(w + "$")
                                                || (w.endsWith("..")
                                                        && c.getPackageName()
                                                                .startsWith(
                                                                        w.substring(
                                                                                0,
                                                                                w.length() - 2)))) {
                                            return false;
                                        }
                                    }
                                    return !c.isEquivalentTo(owner);
                                }))
                .should()
                .callMethodWhere(
                        DescribedPredicate.describe(
                                owner.getSimpleName() + "." + method,
                                call ->
                                        call.getTarget().getOwner().isAssignableTo(owner)
                                                && call.getTarget().getName().equals(method)));
    }

    @Test
    void writerMethods_areCalledOnlyByTheirWriters() {
        // link counts change by deltas, by the directory writers (actors and the rename plan)
        calledOnlyFrom(dev.seqvfs.engine.inode.Inode.class, "addLink", "dev.seqvfs.engine.dir..")
                .check(engine);
        calledOnlyFrom(dev.seqvfs.engine.inode.Inode.class, "dropLinks", "dev.seqvfs.engine.dir..")
                .check(engine);
        // a directory's mount count changes only inside the mount write lock, by the namespace
        calledOnlyFrom(
                        dev.seqvfs.engine.dir.DirectoryInode.class,
                        "addMounts",
                        "dev.seqvfs.engine.mount.Namespace")
                .check(engine);
        // inode numbers and inode slots are handed out to directory writers (and to O_TMPFILE's
        // dir.NamelessFile, which writes no directory)
        calledOnlyFrom(
                        dev.seqvfs.engine.sb.Superblock.class,
                        "allocInoBatch",
                        "dev.seqvfs.engine.dir..")
                .check(engine);
        calledOnlyFrom(
                        dev.seqvfs.engine.sb.Superblock.class,
                        "chargeInode",
                        "dev.seqvfs.engine.dir..")
                .check(engine);
        // actors are published by whoever spawns them
        calledOnlyFrom(
                        dev.seqvfs.engine.sb.Superblock.class,
                        "publishActorRelease",
                        "dev.seqvfs.engine.EngineGuardian")
                .check(engine);
        calledOnlyFrom(
                        dev.seqvfs.engine.dir.DirectoryActor.class,
                        "spawn",
                        "dev.seqvfs.engine.sb.SuperblockActor")
                .check(engine);
        calledOnlyFrom(
                        dev.seqvfs.engine.fdtable.FilesStruct.class,
                        "attach",
                        "dev.seqvfs.engine.EngineGuardian")
                .check(engine);
        // the mount table changes only through mount(2) and umount(2), and in a fork's new
        // namespace while VfsFork builds it
        for (String m : List.of("attach", "detach", "setMountReadOnly")) {
            calledOnlyFrom(
                            dev.seqvfs.engine.mount.Namespace.class,
                            m,
                            "dev.seqvfs.engine.TaskCalls",
                            "dev.seqvfs.engine.SeqVfs",
                            "dev.seqvfs.engine.VfsFork")
                    .check(engine);
        }
        // a fork's sharing of pages and numbers: only the fork's cut and copy
        for (String m : List.of("forkedFrom", "dataAt")) {
            calledOnlyFrom(
                            dev.seqvfs.engine.inode.RegularInode.class,
                            m,
                            "dev.seqvfs.engine.dir.TreeFork")
                    .check(engine);
        }
        calledOnlyFrom(
                        dev.seqvfs.engine.sb.Superblock.class,
                        "continueNumbersOf",
                        "dev.seqvfs.engine.VfsFork")
                .check(engine);
        // a regular file's data changes only through its file operations
        for (String m : List.of("write", "truncate", "fallocate")) {
            calledOnlyFrom(
                            dev.seqvfs.engine.inode.RegularInode.class,
                            m,
                            "dev.seqvfs.engine.file..",
                            "dev.seqvfs.engine.fs..")
                    .check(engine);
        }
        // a non-directory's attributes change through setattr: by descriptor from the attribute
        // calls, by path from the actor of the directory the name was found in
        calledOnlyFrom(
                        dev.seqvfs.engine.inode.Inode.class,
                        "setattr",
                        "dev.seqvfs.engine.AttrCalls",
                        "dev.seqvfs.engine.dir.DirectoryActor")
                .check(engine);
    }

    @Test
    void theCallLayer_testsNoEngineTypeWithInstanceof() {
        classes()
                .that()
                .resideInAPackage("dev.seqvfs.engine")
                .and()
                .haveSimpleNameEndingWith("Calls")
                .should(
                        new ArchCondition<JavaClass>("make no instanceof test on an engine type") {
                            @Override
                            public void check(JavaClass c, ConditionEvents events) {
                                for (var code : c.getCodeUnits()) {
                                    for (var check : code.getInstanceofChecks()) {
                                        if (check.getRawType()
                                                .getPackageName()
                                                .startsWith("dev.seqvfs.engine")) {
                                            events.add(
                                                    SimpleConditionEvent.violated(
                                                            c,
                                                            code.getFullName()
                                                                    + " tests instanceof "
                                                                    + check.getRawType()
                                                                            .getName()));
                                        }
                                    }
                                }
                            }
                        })
                .check(engine);
    }

    @Test
    void theCallLayer_namesNoConcreteFileSystemType() {
        noClasses()
                .that()
                .resideInAPackage("dev.seqvfs.engine")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.seqvfs.engine.fs.tmpfs..", "dev.seqvfs.engine.fs.proc..")
                .check(engine);
    }

    @Test
    void protocol_dependsOnNothingOfTheEngine() {
        // (the protocol module's classes come from its jar in a full build)
        JavaClasses protocol = new ClassFileImporter().importPackages("dev.seqvfs.protocol");
        noClasses()
                .that()
                .resideInAPackage("dev.seqvfs.protocol..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.seqvfs.engine..")
                .check(protocol);
    }

    /** Keeps the helper methods above honest: a member predicate the checks rely on exists. */
    @Test
    void theWritersNamedHere_exist() {
        for (String[] m :
                List.of(
                        new String[] {"dev.seqvfs.engine.inode.Inode", "addLink"},
                        new String[] {"dev.seqvfs.engine.dir.DirectoryInode", "addMounts"},
                        new String[] {"dev.seqvfs.engine.sb.Superblock", "chargeInode"},
                        new String[] {"dev.seqvfs.engine.mount.Namespace", "attach"},
                        new String[] {"dev.seqvfs.engine.inode.RegularInode", "fallocate"})) {
            JavaClass c = engine.get(m[0]);
            boolean found = c.getMethods().stream().map(JavaMember::getName).anyMatch(m[1]::equals);
            assertEquals(true, found, m[0] + "." + m[1]);
        }
    }
}
