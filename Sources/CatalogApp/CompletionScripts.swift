import CatalogCore
import CatalogModel

/// Shell completion scripts for the command line (`catalog --generate-completion-script
/// bash|zsh|fish`): subcommands, options, `--color` values, scene names (the scene files of
/// the state directory), files for `import` and `export`, and a REPL command's arguments as
/// the REPL completes them (product names, scenes, tabs, links), which the scripts ask the
/// program for (`catalog __complete WORD LINE`).
package enum CompletionScripts {
  /// The shells a script is written for.
  package static let shells = ["bash", "zsh", "fish"]

  /// The commands of `catalog` itself, then the REPL's, which run as `catalog COMMAND …`.
  static let subcommands =
    CommandLineOptions.subcommands
    + CommandParser.commandWords.filter { !CommandLineOptions.subcommands.contains($0) }
  /// Every option's names.
  static let options = CommandLineOptions.table.flatMap {
    [$0.name] + ($0.short.map { [$0] } ?? [])
  }

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
    \(bashValueCases)
      esac
      local i
      for ((i = 1; i < COMP_CWORD; i++)); do
        if [[ ${COMP_WORDS[i]} == import || ${COMP_WORDS[i]} == export ]] && [[ $current != -* ]]; then
          COMPREPLY=($(compgen -f -- "$current")); return
        fi
      done
      # A REPL command's arguments, as the REPL completes them.
      local output line
      if output=$("${COMP_WORDS[0]}" \(CommandLineOptions.completionsWord) "$current" "${COMP_LINE:0:COMP_POINT}" 2>/dev/null); then
        [[ -n $output ]] && while IFS= read -r line; do COMPREPLY+=("$line"); done <<< "$output"
        return
      fi
      if [[ $current == -* ]]; then
        COMPREPLY=($(compgen -W "\(options.joined(separator: " "))" -- "$current"))
      else
        COMPREPLY=($(compgen -W "\(subcommands.joined(separator: " "))" -- "$current"))
      fi
    }
    complete -F _catalog catalog

    """
  }

  /// The bash script's completions of each option's value, one `case` line each.
  private static var bashValueCases: String {
    CommandLineOptions.table.compactMap { option -> String? in
      let reply: String
      switch option.value {
      case .none: return nil
      case .scene: reply = #"COMPREPLY=($(compgen -W "$(_catalog_scenes)" -- "$current"))"#
      case .directory: reply = #"COMPREPLY=($(compgen -d -- "$current"))"#
      case .choices(let words):
        reply = #"COMPREPLY=($(compgen -W ""# + words.joined(separator: " ") + #"" -- "$current"))"#
      case .text: reply = ""
      }
      return "    \(option.name)) \(reply.isEmpty ? "" : reply + "; ")return ;;"
    }.joined(separator: "\n")
  }

  private static var fish: String {
    let options = CommandLineOptions.table.map { option in
      var line =
        (option.short.map { "-s \($0.dropFirst()) " } ?? "") + "-l \(option.name.dropFirst(2))"
      switch option.value {
      case .none: break
      case .scene: line += " -x -a '(__catalog_scenes)'"
      case .directory: line += " -r -a '(__fish_complete_directories)'"
      case .choices(let words): line += " -x -a '\(words.joined(separator: " "))'"
      case .text: line += " -x"
      }
      return line + " -d '\(option.summary)'"
    }
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
      complete -c catalog -a '(catalog \(CommandLineOptions.completionsWord) (commandline -ct) (commandline -cp) 2>/dev/null)'
      complete -c catalog -n '__fish_seen_subcommand_from import export' -F

      """ + options.map { "complete -c catalog " + $0 }.joined(separator: "\n") + "\n"
  }
}
