// The `catalog` executable: everything else lives in CatalogCore, where tests reach it.
import CatalogCore
import Foundation

exit(
  CatalogMain.run(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment))
