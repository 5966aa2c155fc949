// swift-tools-version: 6.2
import PackageDescription

/// The Swift runtime and Foundation linked into an executable (with lld, which needs no library
/// order): the dynamic loader then resolves no Swift library at start, most of what a command
/// from the shell costs. The libraries named are those
/// Foundation's static build needs besides what the modules' autolink entries name.
///
/// The C++ library too: `-lstdc++` (the driver's and this one) finds first the linker script of
/// that name in `Sources/catalog/StaticLink`, which names `libstdc++.a`, so that no process
/// loads, relocates and initializes `libstdc++.so.6` as it starts, as much as the rest of the
/// dynamic loading. Only the parts the runtime and ICU use are linked. So are SQLite and zlib,
/// whose modules' `-lsqlite3` and `-lz` find that folder's scripts first, and the unwinder
/// (`-static-libgcc`): the loader then maps the C library and the math library alone.
let staticFoundation: [LinkerSetting] = [
  .unsafeFlags([
    "-static-stdlib", "-use-ld=lld", "-Xclang-linker", "-static-libgcc",
    "-L\(Context.packageDirectory)/Sources/catalog/StaticLink",
    "-Xlinker", "-lCoreFoundation", "-Xlinker", "-l_FoundationICU",
    "-Xlinker", "-l_FoundationCShims", "-Xlinker", "-l_FoundationCollections",
    "-Xlinker", "-lswiftSynchronization", "-Xlinker", "-lstdc++",
  ])
]

/// An executable linked at a fixed address (not position-independent), as `catalog` and its
/// start-up baseline are.
let fixedAddress: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "-no-pie"])]

/// An executable without its own symbols in its dynamic symbol table, where `-static-stdlib`
/// puts them (`-export-dynamic`) for no library to look up: the runtime's start-up, which asks
/// `dladdr` where it was loaded from, would read them all in each process.
let ownSymbolsHidden: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "--no-export-dynamic"])]

let package = Package(
  name: "catalog",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "StateRestoration", targets: ["StateRestoration"]),
    .library(name: "ActivityIndex", targets: ["ActivityIndex"]),
    .library(name: "SearchIndex", targets: ["SearchIndex"]),
    .executable(name: "catalog", targets: ["catalog"]),
  ],
  targets: [
    // zlib, part of every Swift installation on Linux: PNG images, and the search index's CRC-32.
    // Found in the compiler's and linker's own search paths, as libpq and libpng are: through
    // pkg-config, the system's library folder would come first in every link, before the
    // folder `catalog` links SQLite and zlib from (see `staticFoundation`).
    .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
    // SQLite, part of the base image; the catalog database. Found as zlib is.
    .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
    // libpq, PostgreSQL's client library, part of the base image: a catalog shared on a server.
    // Its headers only (no pkg-config, which would link it): CLibPQLoader loads it with dlopen
    // when a server is first used, as what libpq links (TLS, Kerberos, LDAP) would slow every
    // start.
    .systemLibrary(name: "CLibPQ", providers: [.apt(["libpq-dev"])]),
    .target(name: "CLibPQLoader", dependencies: ["CLibPQ"]),
    // libpng and libjpeg-turbo, part of the base image: product pictures. Their headers only
    // (no pkg-config, which would link them): CImageCodecs loads each with dlopen when a
    // picture is first read or written, not at every start.
    .systemLibrary(name: "CPNG", providers: [.apt(["libpng-dev"])]),
    .systemLibrary(name: "CJPEG", providers: [.apt(["libjpeg62-turbo-dev"])]),
    // The calls into libpng and libjpeg, in C: both report errors by longjmp, which must land
    // in a C frame that called setjmp. Every error comes out as a return code and a message.
    .target(name: "CImageCodecs", dependencies: ["CPNG", "CJPEG"]),
    // A small Swift layer over SQLite: connections, statements, transactions.
    .target(name: "SQLite", dependencies: ["CSQLite", "SystemSupport"]),
    // A small Swift layer over libpq: connections, requests with parameters, COPY, LISTEN.
    .target(name: "PostgreSQL", dependencies: ["CLibPQ", "CLibPQLoader", "SystemSupport"]),
    // The file and process layer under the library and the app: durable files, state
    // directories, locks, JSON, process identity. Not a product: its API is `package`.
    .target(name: "SystemSupport"),
    // What SwiftUI and Foundation give an Apple app for state restoration, for Linux.
    // Needs only the toolchain: a program that wants @SceneStorage links no database.
    .target(name: "StateRestoration", dependencies: ["SystemSupport"]),
    // The activity history, a SQLite database: where activities eligible for search are kept,
    // and searched as Core Spotlight searches an app's activities.
    .target(
      name: "ActivityIndex",
      dependencies: ["StateRestoration", "SystemSupport", "SQLite", "SearchIndex"]),
    // Product pictures: PNG and JPEG decoded through libpng and libjpeg-turbo, PNG written
    // through zlib, and drawn for terminals.
    .target(name: "Imaging", dependencies: ["CZlib", "CImageCodecs"]),
    // The Spotlight-style index: folding, an inverted index, prefixes, phrases, typos, top K.
    .target(name: "SearchIndex", dependencies: ["CZlib", "SystemSupport"]),
    // The catalog's values: products, prices, edits and changes, the catalog as a source.
    .target(
      name: "CatalogModel", dependencies: ["StateRestoration", "SystemSupport", "SearchIndex"]),
    // The catalog's engines (SQLite, PostgreSQL) and file formats (products.json, CSV, export).
    .target(
      name: "CatalogEngines",
      dependencies: [
        "CatalogModel", "StateRestoration", "SystemSupport", "SQLite", "PostgreSQL", "SearchIndex",
      ]),
    // The bundled catalog and pictures (the top-level Resources/ folder).
    // Built into the binary: EmbeddedResources.swift is generated from the files beside it.
    .target(
      name: "CatalogResources",
      path: "Resources",
      exclude: ["README.md", "products.json", "Images"],
      sources: ["CatalogResources.swift", "EmbeddedResources.swift"]
    ),
    // A line editor for terminals: keys, display widths, history, completion hooks, signals.
    .target(name: "LineEditing", dependencies: ["SystemSupport"]),
    // The app's pure core: commands, scenes' state, applying a command, rendering to text.
    .target(
      name: "CatalogCore",
      dependencies: [
        "StateRestoration", "ActivityIndex", "CatalogModel", "CatalogResources", "Imaging",
        "SearchIndex", "LineEditing",
      ]
    ),
    // The app's shell: launch and persistence, the REPL loop, the command line, effects.
    .target(
      name: "CatalogApp",
      dependencies: [
        "CatalogCore", "StateRestoration", "SystemSupport", "ActivityIndex", "CatalogModel",
        "CatalogEngines",
        "CatalogResources", "Imaging", "SearchIndex", "LineEditing", "PostgreSQL",
      ]
    ),
    // The thin executable: parses the command line and runs the loop. Foundation is linked in,
    // as a command run from the shell, such as `catalog search`, is mostly start-up; and at a
    // fixed address (not position-independent): the loader then applies none of the tens of
    // thousands of relocations Foundation's and the app's metadata need, and no page is copied
    // to hold them. Shared libraries, the stack and the heap stay randomized.
    //
    // In a release build, the functions a launch and everyday commands run, and the variables
    // they touch, are placed side by side, in the order startup.order lists them (written by
    // `catalog-bench order-file`): they then fill a fraction of the pages they were scattered
    // over, each read in, zeroed or copied by a page fault. A name the file lists and the binary
    // lacks is passed over.
    .executableTarget(
      name: "catalog", dependencies: ["CatalogApp"], exclude: ["startup.order", "StaticLink"],
      linkerSettings: staticFoundation + fixedAddress + ownSymbolsHidden + [
        .unsafeFlags(
          [
            "-Xlinker",
            "--symbol-ordering-file=\(Context.packageDirectory)/Sources/catalog/startup.order",
            "-Xlinker", "--no-warn-symbol-ordering",
          ], .when(configuration: .release))
      ]),
    // Measures start-up and durability in a release build: `swift run -c release catalog-bench`.
    .executableTarget(
      name: "catalog-bench",
      dependencies: [
        "CatalogApp", "CatalogCore", "CatalogModel", "CatalogEngines", "SQLite", "PostgreSQL",
        "StateRestoration",
        "SystemSupport", "ActivityIndex", "SearchIndex",
        "Imaging", "CImageCodecs",
      ]),
    // A to-do REPL restored after kill -9 whose lists are found by search, on the public API
    // of StateRestoration and ActivityIndex: the library's adoption example (README, Getting
    // Started).
    .executableTarget(
      name: "restoration-example", dependencies: ["StateRestoration", "ActivityIndex"]),
    // SwiftUI's path store pattern (NavigationPath, URL.documentsDirectory), as an Apple app
    // writes it, on Linux.
    .executableTarget(name: "path-store-example", dependencies: ["StateRestoration"]),
    // SwiftUI's route manager pattern (deep links, NSUserActivity, @SceneStorage) on Linux.
    .executableTarget(name: "route-example", dependencies: ["StateRestoration"]),
    // The start-up baseline that catalog-bench compares against, linked as `catalog` is.
    .executableTarget(
      name: "hello-foundation",
      linkerSettings: staticFoundation + fixedAddress + ownSymbolsHidden),
    // Draws Resources/Images/*.png: `swift run generate-images Resources`.
    .executableTarget(
      name: "generate-images",
      dependencies: ["Imaging", "CatalogModel", "CatalogEngines", "SystemSupport"]),
    // What every test target shares: temporary directories, seeded randomness, a fake terminal.
    .target(
      name: "TestSupport", dependencies: ["LineEditing", "PostgreSQL"], path: "Tests/TestSupport"),
    // The bundled catalog's products, for the tests of the app's targets.
    .target(
      name: "CatalogTestSupport", dependencies: ["CatalogModel", "CatalogEngines", "TestSupport"],
      path: "Tests/CatalogTestSupport"),
    .testTarget(
      name: "StateRestorationTests",
      dependencies: [
        "StateRestoration", "SystemSupport", "ActivityIndex", "SearchIndex", "TestSupport",
      ]),
    .testTarget(name: "SQLiteTests", dependencies: ["SQLite", "SystemSupport", "TestSupport"]),
    .testTarget(name: "PostgreSQLTests", dependencies: ["PostgreSQL", "TestSupport"]),
    .testTarget(
      name: "ActivityIndexTests",
      dependencies: [
        "ActivityIndex", "SQLite", "SearchIndex", "StateRestoration", "SystemSupport",
        "TestSupport",
      ]),
    .testTarget(
      name: "SearchIndexTests", dependencies: ["SearchIndex", "SystemSupport", "TestSupport"]),
    .testTarget(
      name: "CatalogModelTests",
      dependencies: [
        "CatalogModel", "CatalogEngines", "SystemSupport", "SQLite", "PostgreSQL", "TestSupport",
        "CatalogTestSupport",
      ]),
    .testTarget(
      name: "ImagingTests",
      dependencies: [
        "Imaging", "CImageCodecs", "CatalogResources", "CatalogModel", "CatalogEngines",
        "TestSupport",
      ]),
    .testTarget(name: "LineEditingTests", dependencies: ["LineEditing", "TestSupport"]),
    .testTarget(
      name: "CatalogCoreTests",
      dependencies: [
        "CatalogCore", "CatalogModel", "CatalogEngines", "ActivityIndex", "SystemSupport",
        "LineEditing", "TestSupport", "CatalogTestSupport",
      ]),
    .testTarget(
      name: "CatalogAppTests",
      dependencies: [
        "CatalogApp", "CatalogCore", "CatalogModel", "CatalogEngines", "StateRestoration",
        "SystemSupport",
        "LineEditing", "TestSupport", "CatalogTestSupport",
      ]),
    // Runs the built `catalog` (which `swift test` builds with every other target); it does not
    // link it, as the executable's static linking would not fit a test bundle.
    .testTarget(
      name: "CatalogEndToEndTests",
      dependencies: [
        "SQLite", "PostgreSQL", "SearchIndex", "StateRestoration", "SystemSupport", "ActivityIndex",
        "Imaging", "CImageCodecs", "TestSupport", "CatalogTestSupport",
      ]),
  ],
  swiftLanguageModes: [.v6]
)

// Generic types such as `[String: Scene]` are built at run time from a mangled name by default:
// demangled, and each generic requirement looked up among all the binary's protocol
// conformances, in every process that meets the type. Every target builds them through their
// metadata accessors instead: from tools version 6.2, SwiftPM builds a library with unsafe flags
// for a package that depends on it by version.
for target in package.targets where target.type != .system {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])
    ]
}
