import QuireSyntax

/// What ``Document/flatten(_:)`` burns into the pages.
public struct FlattenOptions: Sendable {
    /// The subtypes to flatten ("Widget" for form fields, "Highlight", ...); nil: every
    /// subtype but Link and Popup.
    public var subtypes: Set<String>?
    /// Whether links stay on the pages (as links); false removes them too (links have no
    /// appearance to draw).
    public var keepLinks: Bool

    public init(subtypes: Set<String>? = nil, keepLinks: Bool = true) {
        self.subtypes = subtypes
        self.keepLinks = keepLinks
    }
}

extension Document {
    /// Burns annotations into page content (ISO 32000-2 §12.5.5): the normal appearance of
    /// each chosen, visible annotation (of its /AS state when it has several) is drawn as
    /// a form XObject, with the matrix that maps its transformed /BBox onto its /Rect, at
    /// the end of the page's content (the original content wrapped in q/Q); then the
    /// annotation is removed from the page. Popups, replies (/IRT) and hidden annotations
    /// (flags Hidden or NoView) of the chosen subtypes are removed without being drawn.
    /// An annotation without a normal appearance is drawn with the appearance Quire
    /// generates for its subtype (``Appearance``), or removed with a warning when Quire
    /// draws no such subtype. When every
    /// widget is gone, the form (/AcroForm) goes too, so nothing remains editable.
    ///
    /// `progress` is called with the pages done and their total (see ``ProgressHandler``).
    ///
    /// Returns the number of annotations drawn. All or nothing (``allOrNothing(_:)``): an
    /// error, or `progress` throwing to cancel, leaves the document as it was.
    @discardableResult
    public func flatten(_ options: FlattenOptions = FlattenOptions(), progress: ProgressHandler? = nil) throws -> Int {
        try checkCertification(allows: .other)
        noteModification(.other)
        return try allOrNothing {
            if options.subtypes?.contains("Widget") ?? true { try makeMissingFieldAppearances() }
            let all = try pages()
            try progress?(0, all.count)
            var drawn = 0
            var widgetsLeft = false
            for (done, page) in all.enumerated() {
                if done > 0 { try progress?(done, all.count) }
                guard let pageID = page.id else { continue }
                guard let annotsValue = page.dictionary["Annots"], let annots = try resolve(annotsValue).array else { continue }
                var keep: [PDFObject] = []
                var draws: [(PDFObject, PDFDictionary)] = []  // (appearance stream, annotation)
                for item in annots {
                    guard let a = try dictionary(item) else { continue }
                    let subtype = a["Subtype"]?.name?.value ?? ""
                    if subtype == "Link" {
                        if options.keepLinks { keep.append(item) }
                        continue
                    }
                    let chosen = options.subtypes.map { $0.contains(subtype) } ?? true
                    guard chosen || subtype == "Popup" && options.subtypes == nil else {
                        keep.append(item)
                        if subtype == "Widget" { widgetsLeft = true }
                        continue
                    }
                    if subtype == "Popup" { continue }
                    let flags = (try a["F"].map(resolve)?.integer) ?? 0
                    if flags & 2 != 0 || flags & 32 != 0 || a["IRT"] != nil { continue }
                    guard let ap = try normalAppearance(a) ?? generatedAppearance(item, subtype: subtype) else {
                        if subtype != "Widget" {
                            file.warn("page \(page.index + 1): a \(subtype) annotation without a normal appearance is removed, not drawn")
                        }
                        continue
                    }
                    draws.append((ap, a))
                }
                guard keep.count != annots.count || !draws.isEmpty else { continue }
                try drawAppearances(draws, on: page, pageID: pageID)
                drawn += draws.count
                // The page as it is now (drawAppearances changed its /Contents and /Resources).
                try setValue(keep.isEmpty ? nil : .array(keep), forKey: "Annots", inObject: pageID.number)
            }
            if !widgetsLeft, (options.subtypes?.contains("Widget") ?? true), let rootID = trailer["Root"]?.reference,
               try catalog()["AcroForm"] != nil {
                try setValue(nil, forKey: "AcroForm", inObject: rootID.number)
            }
            if !all.isEmpty { try progress?(all.count, all.count) }
            return drawn
        }
    }

    /// Gives the widgets of text fields and choice fields that have no normal appearance
    /// one drawn from the field's value (viewers draw those from the value; flattened, the
    /// appearance is all that remains).
    private func makeMissingFieldAppearances() throws {
        for field in try formFields() where [.text, .comboBox, .listBox].contains(field.type) {
            var missing = false
            for w in field.widgets {
                let wd = try dictionary(.reference(w.id))
                if try normalAppearance(wd ?? PDFDictionary()) == nil { missing = true }
            }
            guard missing else { continue }
            switch field.type {
            case .listBox:
                let selected = field.values.compactMap { v in field.options.firstIndex(where: { $0.exportValue == v }) }
                try regenerateListAppearances(field, selected: Set(selected), strict: false)
            case .comboBox:
                let v = field.values.first ?? ""
                try regenerateTextAppearances(field, text: field.options.first(where: { $0.exportValue == v })?.displayText ?? v, strict: false)
            default:
                try regenerateTextAppearances(field, text: field.values.first ?? "", strict: false)
            }
        }
    }

    /// The normal appearance stream of an annotation: /AP /N, or its /AS state.
    private func normalAppearance(_ a: PDFDictionary) throws -> PDFObject? {
        guard let ap = try dictionary(a["AP"]), let n = ap["N"] else { return nil }
        switch try resolve(n) {
        case .stream:
            return n
        case .dictionary(let states):
            guard let state = a["AS"]?.name, let s = states[state], case .stream = try resolve(s) else { return nil }
            return s
        default:
            return nil
        }
    }

    /// For an annotation without /AP of a subtype Quire draws (``Appearance``), the
    /// appearance Quire would give it, as a new stream.
    private func generatedAppearance(_ item: PDFObject, subtype: String) throws -> PDFObject? {
        let drawable: Set<String> = ["Text", "FreeText", "Line", "Square", "Circle", "Polygon", "PolyLine",
                                     "Highlight", "Underline", "Squiggly", "StrikeOut", "Ink", "Stamp"]
        guard drawable.contains(subtype), let id = item.reference, let annotation = try annotation(id) else { return nil }
        let s = try Appearance.make(for: annotation, document: self, strict: false)
        return .reference(try addAppearanceStream(s))
    }

    /// Appends `draws` to the page's content and their XObjects to its resources.
    func drawAppearances(_ draws: [(PDFObject, PDFDictionary)], on page: Page, pageID: ObjectID) throws {
        guard !draws.isEmpty else { return }
        var pageDict = try object(pageID.number).dictionary ?? page.dictionary
        var resources = (try dictionary(pageDict["Resources"] ?? page.inheritedResources ?? .null)) ?? PDFDictionary()
        var xobjects = (try dictionary(resources["XObject"])) ?? PDFDictionary()
        var ops = "Q\n"
        var k = 0
        for (ap, a) in draws {
            guard let rect = try self.rect(a["Rect"]), case .stream(var stream) = try resolve(ap) else { continue }
            // The stream as an indirect object of type Form.
            var ref: PDFObject = ap
            if stream.dictionary["Subtype"]?.name != "Form" || ap.reference == nil {
                stream.dictionary["Type"] = .name("XObject")
                stream.dictionary["Subtype"] = .name("Form")
                let data = try streamData(stream, decoded: false)
                var d = stream.dictionary
                d["Length"] = .integer(Int64(data.count))
                ref = .reference(try addStream(d, data: data))
            }
            let bbox = (try self.rect(stream.dictionary["BBox"])) ?? rect
            let m = try matrix(stream.dictionary["Matrix"])
            // §12.5.5: the BBox transformed by Matrix, its bounding box mapped onto Rect.
            let corners = [(bbox.left, bbox.bottom), (bbox.right, bbox.bottom), (bbox.left, bbox.top), (bbox.right, bbox.top)]
                .map { (m[0] * $0.0 + m[2] * $0.1 + m[4], m[1] * $0.0 + m[3] * $0.1 + m[5]) }
            let xs = corners.map(\.0), ys = corners.map(\.1)
            guard let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max(), x1 > x0, y1 > y0 else { continue }
            let sx = rect.width / (x1 - x0), sy = rect.height / (y1 - y0)
            let a = [sx, 0, 0, sy, rect.left - x0 * sx, rect.bottom - y0 * sy]
            guard a.allSatisfy(\.isFinite) else { continue }
            var name: PDFName
            repeat {
                name = PDFName("QuireFlat\(k)")
                k += 1
            } while xobjects[name] != nil
            xobjects[name] = ref
            ops += "q \(a.map(Appearance.n).joined(separator: " ")) cm /\(name.value) Do Q\n"
        }
        resources["XObject"] = .dictionary(xobjects)
        let before = try addStream(PDFDictionary(), data: Array("q\n".utf8))
        let after = try addStream(PDFDictionary(), data: Array(ops.utf8))
        var contents: [PDFObject] = [.reference(before)]
        if let c = pageDict["Contents"] {
            switch try resolve(c) {
            case .array(let items): contents += items
            case .stream: contents.append(c)
            default: break
            }
        }
        contents.append(.reference(after))
        pageDict["Contents"] = .array(contents)
        pageDict["Resources"] = .dictionary(resources)
        try setObject(pageID.number, .dictionary(pageDict))
    }

    /// A form's /Matrix, the identity when missing or malformed.
    private func matrix(_ value: PDFObject?) throws -> [Double] {
        guard let value, let a = try resolve(value).array, a.count == 6 else { return [1, 0, 0, 1, 0, 0] }
        let m = try a.map { try resolve($0).number ?? .nan }
        return m.allSatisfy(\.isFinite) ? m : [1, 0, 0, 1, 0, 0]
    }
}
