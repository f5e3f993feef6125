#!/usr/bin/env python3
"""The documentation's checks, run by scripts/docs.sh.

  docs.py graphs RAW OUT   Builds the umbrella module's symbol graph: the graphs of the modules
                           `import AFNetworking` re-exports (RAW, from swift-symbolgraph-extract),
                           merged under the name AFNetworking into OUT/AFNetworking; the testing
                           product's into OUT/AFNetworkingTesting. Fails unless every public
                           symbol declared in the package has a doc comment, and prints the count.
  docs.py snippets         Fails unless every ```swift listing of the README and the catalogs
                           is a region of a file in Documentation/Snippets (which the
                           DocumentationSnippets test target compiles), and every region is
                           shown by a listing.

The umbrella's own symbol graph is of no use here: the compiler's (-emit-symbol-graph) holds
every re-exported module's symbols, Foundation's included (some 20,000), and
swift-symbolgraph-extract's holds none.

A region starts at `// snippet: NAME` and ends at `// snippet: end`; lines between
`// snippet.hide` and `// snippet.show` are compiled but not shown. Each shown run of lines loses
its common indentation. A listing whose first line is `// Package.swift` is a manifest excerpt,
which no target can compile, and is not looked for.
"""
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UMBRELLA = "AFNetworking"
REEXPORTED = ["AFSerialization", "AFSession", "AFTransport", "AFSecurity", "AFReachability"]
TESTING = "AFNetworkingTesting"
CATALOGS = ["Sources/AFNetworking/AFNetworking.docc", "Sources/Testing/AFNetworkingTesting.docc"]


def load(path):
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def save(path, graph):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as file:
        json.dump(graph, file)


def merged(graphs, name):
    """One graph of module `name` holding the symbols and relationships of `graphs`."""
    result = dict(graphs[0])
    result["module"] = dict(graphs[0]["module"], name=name)
    symbols, relationships, seen, seen_relationships = [], [], set(), set()
    for graph in graphs:
        for symbol in graph["symbols"]:
            if symbol["identifier"]["precise"] not in seen:
                seen.add(symbol["identifier"]["precise"])
                symbols.append(symbol)
        for relationship in graph["relationships"]:
            key = json.dumps(relationship, sort_keys=True)
            if key not in seen_relationships:
                seen_relationships.add(key)
                relationships.append(relationship)
    result["symbols"], result["relationships"] = symbols, relationships
    return result


def declared_here(symbol):
    """A symbol declared in the package's sources (not synthesized, not inherited)."""
    uri = symbol.get("location", {}).get("uri", "")
    return uri.startswith("file://" + ROOT + "/Sources/")


def graphs(raw, out):
    undocumented, documented = [], 0
    groups = {UMBRELLA: REEXPORTED, TESTING: [TESTING]}
    for name, modules in groups.items():
        main = [load(os.path.join(raw, f"{module}.symbols.json")) for module in modules]
        save(os.path.join(out, name, f"{name}.symbols.json"), merged(main, name))
        # Extensions of other modules' types (Foundation's, FoundationNetworking's), by module extended.
        extensions = {}
        for module in modules:
            for path in glob.glob(os.path.join(raw, f"{module}@*.symbols.json")):
                extended = os.path.basename(path)[len(module) + 1:-len(".symbols.json")]
                if extended in groups[name]:
                    raise SystemExit(f"docs: {path} extends a module merged into {name}: merge it into the main graph")
                extensions.setdefault(extended, []).append(load(path))
        for extended, parts in extensions.items():
            save(os.path.join(out, name, f"{name}@{extended}.symbols.json"), merged(parts, name))
        for graph in main + [part for parts in extensions.values() for part in parts]:
            for symbol in graph["symbols"]:
                if not declared_here(symbol):
                    continue
                if symbol.get("docComment", {}).get("lines"):
                    documented += 1
                else:
                    location = symbol["location"]
                    undocumented.append(f"{location['uri'][len('file://' + ROOT) + 1:]}:{location['position']['line'] + 1}: "
                                        f"{'.'.join(symbol['pathComponents'])}")
    total = documented + len(undocumented)
    print(f"docs: public symbols documented: {documented} of {total} ({100 * documented / max(total, 1):.1f}%)")
    if undocumented:
        print("docs: public symbols without a doc comment:")
        print("\n".join("  " + line for line in sorted(set(undocumented))))
        sys.exit(1)


def regions():
    """Every snippet region: name -> (file, listing text)."""
    found = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "Documentation/Snippets/*.swift"))):
        lines = open(path, encoding="utf-8").read().split("\n")
        name, runs, hidden = None, [[]], False
        for number, line in enumerate(lines, 1):
            marker = line.strip()
            if marker.startswith("// snippet: "):
                label = marker[len("// snippet: "):]
                if label == "end":
                    if name is None:
                        raise SystemExit(f"{path}:{number}: an end without a region")
                    found[name] = (os.path.relpath(path, ROOT), listing(runs))
                    name = None
                else:
                    if name is not None:
                        raise SystemExit(f"{path}:{number}: region {label} inside region {name}")
                    if label in found:
                        raise SystemExit(f"{path}:{number}: region {label} named twice")
                    name, runs, hidden = label, [[]], False
            elif marker == "// snippet.hide":
                hidden = True
            elif marker == "// snippet.show":
                hidden = False
                runs.append([])
            elif name is not None and not hidden:
                runs[-1].append(line)
        if name is not None:
            raise SystemExit(f"{path}: region {name} has no end")
    return found


def dedented(lines):
    indents = [len(line) - len(line.lstrip(" ")) for line in lines if line.strip()]
    cut = min(indents) if indents else 0
    return [line[cut:] if line.strip() else "" for line in lines]


def listing(runs):
    text = "\n".join(line for run in runs for line in dedented(run))
    return text.strip("\n")


def listings():
    """Every ```swift listing of the README and the catalogs: (file, line, text)."""
    pages = [os.path.join(ROOT, "README.md")]
    for catalog in CATALOGS:
        pages += sorted(glob.glob(os.path.join(ROOT, catalog, "**/*.md"), recursive=True))
    found = []
    for path in pages:
        lines = open(path, encoding="utf-8").read().split("\n")
        index = 0
        while index < len(lines):
            match = re.match(r"^(\s*)```swift\s*$", lines[index])
            if match:
                indent, start, body = len(match.group(1)), index + 1, []
                index += 1
                while not re.match(r"^\s*```\s*$", lines[index]):
                    body.append(lines[index][indent:] if lines[index].strip() else "")
                    index += 1
                found.append((os.path.relpath(path, ROOT), start, "\n".join(body).strip("\n")))
            index += 1
    return found


def snippets():
    known = regions()
    shown, failures, checked = set(), [], 0
    by_text = {text: name for name, (_, text) in known.items()}
    for path, line, text in listings():
        if text.startswith("// Package.swift"):
            continue
        checked += 1
        if text in by_text:
            shown.add(by_text[text])
        else:
            failures.append(f"{path}:{line}: this listing is no region of Documentation/Snippets (compiled by "
                            "the DocumentationSnippets target): copy the region's text, or add it there")
    for name, (path, _) in sorted(known.items()):
        if name not in shown:
            failures.append(f"{path}: region {name} is shown by no listing of the README or the catalogs")
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print(f"docs: {checked} Swift listings, each a compiled region of Documentation/Snippets")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "graphs":
        graphs(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 2 and sys.argv[1] == "snippets":
        snippets()
    else:
        raise SystemExit(__doc__)
