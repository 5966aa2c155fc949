import CatalogCore
import CatalogModel

/// Shell completion scripts for the command line (`catalog --generate-completion-script
/// bash|zsh|fish`): subcommands, options, `--color` values, scene names (the scene files of
/// the state directory) and files for `import` and `export`.
package enum CompletionScripts {
  /// The shells a script is written for.
  package static let shells = ["bash", "zsh", "fish"]

  /// The commands of `catalog` itself, then the REPL's, which run as `catalog COMMAND …`.
  static let subcommands =
    CommandLineOptions.subcommands
    + CommandParser.commandWords.filter { !CommandLineOptions.subcommands.contains($0) }
  static let options = [
    "--scene", "--state-dir", "--data-dir", "--catalog-url", "--fresh", "--color", "--pictures",
    "--json", "--limit",
    "--format", "--bom", "--replace", "--duplicates", "--restore-deleted", "--help",
    "--version", "--generate-completion-script",
  ]

  /// The values `--duplicates` takes.
  static let duplicatePolicies = ImportOptions.DuplicateNames.allCases.map(\.rawValue).joined(
    separator: " ")

  /// The script for a shell.
  ///
  /// - Parameter shell: `bash`, `zsh` or `fish`.
  /// - Returns: The script, or nil for another shell.
  package static func script(for shell: String) -> String? {
    switch shell {
    case "bash": bash
    case "zsh": "#compdef catalog\n" + "autoload -U +X bashcompinit && bashcompinit\n" + bash
    case "fish": fish
    default: nil
    }
  }

  private static var bash: String {
    """
    # catalog completion for bash: source it, or put it in
    # ~/.local/share/bash-completion/completions/catalog
    _catalog_scenes() {
      local dir="${XDG_STATE_HOME:-$HOME/.local/state}/catalog"
      local i
      for ((i = 1; i < COMP_CWORD; i++)); do
        [[ ${COMP_WORDS[i]} == --state-dir ]] && dir="${COMP_WORDS[i+1]}"
      done
      local file
      for file in "$dir"/scenes/*.json; do
        [[ -e $file ]] && basename "$file" .json
      done
    }
    _catalog() {
      local current="${COMP_WORDS[COMP_CWORD]}" previous="${COMP_WORDS[COMP_CWORD-1]}"
      COMPREPLY=()
      case "$previous" in
        --scene) COMPREPLY=($(compgen -W "$(_catalog_scenes)" -- "$current")); return ;;
        --state-dir|--data-dir) COMPREPLY=($(compgen -d -- "$current")); return ;;
        --color) COMPREPLY=($(compgen -W "auto always never" -- "$current")); return ;;
        --pictures) COMPREPLY=($(compgen -W "auto blocks kitty sixel none" -- "$current")); return ;;
        --generate-completion-script) COMPREPLY=($(compgen -W "\(shells.joined(separator: " "))" -- "$current")); return ;;
        --limit|--catalog-url) return ;;
        --format) COMPREPLY=($(compgen -W "csv json" -- "$current")); return ;;
        --duplicates) COMPREPLY=($(compgen -W "\(duplicatePolicies)" -- "$current")); return ;;
      esac
      local i
      for ((i = 1; i < COMP_CWORD; i++)); do
        if [[ ${COMP_WORDS[i]} == import || ${COMP_WORDS[i]} == export ]] && [[ $current != -* ]]; then
          COMPREPLY=($(compgen -f -- "$current")); return
        fi
      done
      if [[ $current == -* ]]; then
        COMPREPLY=($(compgen -W "\(options.joined(separator: " "))" -- "$current"))
      else
        COMPREPLY=($(compgen -W "\(subcommands.joined(separator: " "))" -- "$current"))
      fi
    }
    complete -F _catalog catalog

    """
  }

  private static var fish: String {
    let options = [
      "-l scene -x -a '(__catalog_scenes)' -d 'open (or create) only this scene'",
      "-l state-dir -r -a '(__fish_complete_directories)' -d 'session and scenes here'",
      "-l data-dir -r -a '(__fish_complete_directories)' -d 'the catalog here'",
      "-l catalog-url -x -d 'the catalog on a PostgreSQL server'",
      "-l fresh -d 'start without restoring scene state'",
      "-l color -x -a 'auto always never' -d 'when to use colour'",
      "-l pictures -x -a 'auto blocks kitty sixel none' -d 'how pictures are drawn'",
      "-l json -d 'print JSON (state, search)'",
      "-l limit -x -d 'the most search results'",
      "-l format -x -a 'csv json' -d 'export as CSV or JSON'",
      "-l bom -d 'a CSV export for spreadsheets: a byte order mark, no formulas'",
      "-l replace -d 'import: the file becomes the catalog'",
      "-l duplicates -x -a '\(duplicatePolicies)' -d 'import: records without identifiers whose name is taken'",
      "-l restore-deleted -d 'import: bring back deleted products'",
      "-s h -l help -d 'show the help'",
      "-l version -d 'show the version'",
      "-l generate-completion-script -x -a '\(shells.joined(separator: " "))' -d 'print a completion script'",
    ]
    return """
      # catalog completion for fish: put it in ~/.config/fish/completions/catalog.fish
      function __catalog_scenes
          set -l dir (set -q XDG_STATE_HOME; and echo $XDG_STATE_HOME; or echo $HOME/.local/state)/catalog
          for file in $dir/scenes/*.json
              basename $file .json
          end
      end
      complete -c catalog -f
      complete -c catalog -n '__fish_use_subcommand' -a '\(subcommands.joined(separator: " "))'
      complete -c catalog -n '__fish_seen_subcommand_from import export' -F

      """ + options.map { "complete -c catalog " + $0 }.joined(separator: "\n") + "\n"
  }
}
