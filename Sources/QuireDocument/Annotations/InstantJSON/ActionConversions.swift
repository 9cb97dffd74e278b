import QuireSyntax

extension InstantJSON {
    // MARK: Actions

    static func jsonAction(_ action: Action, warn: (String) -> Void) -> InstantJSONAction? {
        var j: InstantJSONAction
        switch action.kind {
        case .goTo(let d?):
            j = InstantJSONAction(type: "goTo")
            j.pageIndex = d.pageIndex
            if d.fit != .retain || d.name != nil { j.destination = jsonDestination(d, withPage: false) }
        case .goTo(nil):
            warn("a GoTo action without a valid destination is left out of the annotation JSON")
            return nil
        case .goToRemote(let file, let destination, let newWindow):
            j = InstantJSONAction(type: "goToRemote")
            j.relativePath = file?.path
            j.newWindow = newWindow
            switch destination {
            case .named(let bytes)?: j.namedDestination = String(decoding: bytes, as: UTF8.self)
            case .explicit(let d)?: j.destination = jsonDestination(d, withPage: true)
            case nil: break
            }
        case .uri(let uri, let isMap):
            j = InstantJSONAction(type: "uri")
            j.uri = uri
            j.isMap = isMap ? true : nil
        case .named(let name):
            j = InstantJSONAction(type: "named")
            j.action = lowerFirst(name)
            if upperFirst(lowerFirst(name)) != name { j.pdfName = name }
        case .launch(let file, let newWindow):
            j = InstantJSONAction(type: "launch")
            j.filePath = file?.path
            j.newWindow = newWindow
        case .other(let type, let dict):
            guard type == "JavaScript", case .string(let s)? = dict["JS"] else {
                warn("a /\(type) action cannot be written as annotation JSON; it is left out")
                return nil
            }
            j = InstantJSONAction(type: "javascript")
            j.script = s.text
        }
        j.next = action.next.compactMap { jsonAction($0, warn: warn) }
        return j
    }

    static func jsonDestination(_ d: Destination, withPage: Bool) -> InstantJSONDestination {
        var j: InstantJSONDestination
        switch d.fit {
        case .xyz(let l, let t, let z): j = InstantJSONDestination(fit: "XYZ"); j.left = l; j.top = t; j.zoom = z
        case .fit: j = InstantJSONDestination(fit: "Fit")
        case .fitH(let t): j = InstantJSONDestination(fit: "FitH"); j.top = t
        case .fitV(let l): j = InstantJSONDestination(fit: "FitV"); j.left = l
        case .fitR(let l, let b, let r, let t):
            j = InstantJSONDestination(fit: "FitR"); j.left = l; j.bottom = b; j.right = r; j.top = t
        case .fitB: j = InstantJSONDestination(fit: "FitB")
        case .fitBH(let t): j = InstantJSONDestination(fit: "FitBH"); j.top = t
        case .fitBV(let l): j = InstantJSONDestination(fit: "FitBV"); j.left = l
        }
        if withPage { j.pageIndex = d.pageIndex }
        if let bytes = d.name {
            if let text = String(validating: bytes, as: UTF8.self) { j.name = text } else { j.nameHex = InstantJSON.hex(bytes) }
        }
        return j
    }

    static func fit(_ j: InstantJSONDestination?) -> Destination.Fit {
        guard let j else { return .retain }
        switch j.fit {
        case "Fit": return .fit
        case "FitH": return .fitH(top: j.top)
        case "FitV": return .fitV(left: j.left)
        case "FitR": return .fitR(left: j.left, bottom: j.bottom, right: j.right, top: j.top)
        case "FitB": return .fitB
        case "FitBH": return .fitBH(top: j.top)
        case "FitBV": return .fitBV(left: j.left)
        default: return .xyz(left: j.left, top: j.top, zoom: j.zoom)
        }
    }

    static func action(_ j: InstantJSONAction, pageCount: Int, path: String) throws -> Action {
        func fail(_ field: String, _ message: String) -> PDFError {
            PDFError(.format, "annotation JSON: \(path)\(field.isEmpty ? "" : "." + field): \(message)")
        }
        func required<T>(_ v: T?, _ field: String) throws -> T {
            guard let v else { throw fail(field, "missing field \"\(field)\" for a \(j.type) action") }
            return v
        }
        let kind: Action.Kind
        switch j.type {
        case "goTo":
            let page = try required(j.pageIndex, "pageIndex")
            guard page < pageCount else { throw fail("pageIndex", "page \(page) does not exist (the page tree holds \(pageCount) pages)") }
            kind = .goTo(Destination(pageIndex: page, fit: fit(j.destination), name: j.destination?.nameBytes()))
        case "goToRemote":
            var target: RemoteDestination? = nil
            if let name = j.namedDestination {
                target = .named(Array(name.utf8))
            } else if let d = j.destination {
                let page = try required(d.pageIndex, "quire.destination.pageIndex")
                target = .explicit(Destination(pageIndex: page, fit: fit(d)))
            }
            kind = .goToRemote(file: j.relativePath.map { FileSpecification(path: $0) }, destination: target, newWindow: j.newWindow)
        case "uri":
            kind = .uri(try required(j.uri, "uri"), isMap: j.isMap ?? false)
        case "named":
            let name = try required(j.action, "action")
            let pdf = j.pdfName.flatMap { lowerFirst($0) == name ? $0 : nil } ?? upperFirst(name)
            _ = try JSONNode(value: .string(pdf), path: path + ".action").pdfName()
            kind = .named(pdf)
        case "launch":
            kind = .launch(file: j.filePath.map { FileSpecification(path: $0) }, newWindow: j.newWindow)
        case "javascript":
            let script = try required(j.script, "script")
            kind = .other(type: "JavaScript", dictionary: PDFDictionary([("S", .name("JavaScript")), ("JS", .string(PDFString(text: script)))]))
        default:
            throw fail("type", "unsupported action type \"\(j.type.prefix(40))\" (goTo, goToRemote, uri, named, launch or javascript)")
        }
        let next = try j.next.enumerated().map { i, n in
            try action(n, pageCount: pageCount, path: "\(path)\(i == 0 && j.next.count == 1 ? ".subAction" : ".quire.next[\(i)]")")
        }
        return Action(kind: kind, next: next)
    }
}
