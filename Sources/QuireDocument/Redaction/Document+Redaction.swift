import QuireSyntax

extension Document {
    // MARK: Marking

    /// Marks `regions` of page `pageIndex` for redaction with a Redact annotation (ISO
    /// 32000-2 §12.5.6.23): one quadrilateral per region in /QuadPoints, /Rect their bounds,
    /// `fill` as /IC (the colour the regions get when applied; nil: none) and
    /// `overlayText` as /OverlayText. Added through the ordinary path (generated marked
    /// appearance, checkpoints, journal). Throws `.invalidArgument` for no region, a region
    /// that is empty or not finite, or one that lies wholly off the page (its /CropBox).
    @discardableResult
    public func addRedaction(
        pageIndex: Int,
        regions: [Rect],
        fill: [Double]? = [0, 0, 0],
        overlayText: String? = nil,
        author: String? = nil
    ) throws -> Annotation {
        try addRedaction(
            pageIndex: pageIndex,
            quads: try redactionQuads(pageIndex: pageIndex, regions: regions),
            fill: fill,
            overlayText: overlayText,
            author: author
        )
    }

    /// Marks the quadrilaterals of text (a search match's or a selection's ``TextSpan/quads``)
    /// for redaction, as ``addRedaction(pageIndex:regions:fill:overlayText:author:)`` does.
    @discardableResult
    public func addRedaction(
        pageIndex: Int,
        quads: [TextQuad],
        fill: [Double]? = [0, 0, 0],
        overlayText: String? = nil,
        author: String? = nil
    ) throws -> Annotation {
        guard !quads.isEmpty else { throw PDFError(.invalidArgument, "a redaction needs at least one region") }
        try Document.checkRedactionFill(fill)
        _ = try redactionQuads(pageIndex: pageIndex, regions: quads.map(\.bounds))
        return try addRedactionMark(
            pageIndex: pageIndex,
            quads: quads,
            fill: fill,
            overlayText: overlayText,
            author: author
        )
    }

    /// The Redact annotation of `quads` (checked by the caller).
    private func addRedactionMark(
        pageIndex: Int,
        quads: [TextQuad],
        fill: [Double]?,
        overlayText: String?,
        author: String?
    ) throws -> Annotation {
        var r = quads[0].bounds
        for q in quads.dropFirst() {
            let b = q.bounds
            r = Rect(
                left: min(r.left, b.left),
                bottom: min(r.bottom, b.bottom),
                right: max(r.right, b.right),
                top: max(r.top, b.top)
            )
        }
        var a = Annotation(subtype: "Redact", pageIndex: pageIndex, rect: r)
        a.quadPoints = quads.flatMap(\.quadPoints)
        a.interiorColor = fill
        a.overlayText = overlayText
        a.author = author
        return try addAnnotation(a)
    }

    /// `quad`, or, when its box is narrower or lower than a point, that box grown to be
    /// at least one point each way around its centre.
    static func grownToHalfAPoint(_ quad: TextQuad) -> TextQuad {
        let b = quad.bounds
        guard b.width < 1 || b.height < 1 else { return quad }
        let cx = (b.left + b.right) / 2
        let cy = (b.bottom + b.top) / 2
        let hw = Swift.max(b.width, 1) / 2
        let hh = Swift.max(b.height, 1) / 2
        return TextQuad(
            lowerLeft: TextPoint(x: cx - hw, y: cy - hh),
            lowerRight: TextPoint(x: cx + hw, y: cy - hh),
            upperRight: TextPoint(x: cx + hw, y: cy + hh),
            upperLeft: TextPoint(x: cx - hw, y: cy + hh)
        )
    }

    /// A fill colour of a redaction: none, or 1, 3 or 4 components between 0 and 1.
    static func checkRedactionFill(_ fill: [Double]?) throws {
        guard let fill else { return }
        guard [1, 3, 4].contains(fill.count), fill.allSatisfy({ (0...1).contains($0) }) else {
            throw PDFError(.invalidArgument, "a fill colour has 1, 3 or 4 components between 0 and 1")
        }
    }

    /// `regions` checked against page `pageIndex` (finite, not empty, touching the page),
    /// as quadrilaterals.
    private func redactionQuads(pageIndex: Int, regions: [Rect]) throws -> [TextQuad] {
        guard !regions.isEmpty else { throw PDFError(.invalidArgument, "a redaction needs at least one region") }
        let page = try self.page(at: pageIndex)
        let box = try page.box(.crop)
        return try regions.enumerated().map { k, r in
            guard [r.left, r.bottom, r.right, r.top].allSatisfy({ $0.isFinite && abs($0) <= 1e9 }) else {
                throw PDFError(.invalidArgument, "region \(k + 1) is not finite")
            }
            guard r.width > 0, r.height > 0 else { throw PDFError(.invalidArgument, "region \(k + 1) \(r) is empty") }
            guard r.right > box.left, r.left < box.right, r.top > box.bottom, r.bottom < box.top else {
                throw PDFError(
                    .invalidArgument,
                    "region \(k + 1) \(r) lies off page \(pageIndex + 1) (its crop box is \(box))"
                )
            }
            return TextQuad(
                lowerLeft: TextPoint(x: r.left, y: r.bottom),
                lowerRight: TextPoint(x: r.right, y: r.bottom),
                upperRight: TextPoint(x: r.right, y: r.top),
                upperLeft: TextPoint(x: r.left, y: r.top)
            )
        }
    }

    /// Marks every match of `query` (see ``searchText(_:options:progress:)``) for redaction,
    /// one Redact annotation per match. Returns the annotations added. All or nothing.
    @discardableResult
    public func addRedactions(
        matching query: String,
        options: TextSearchOptions = TextSearchOptions(),
        fill: [Double]? = [0, 0, 0],
        overlayText: String? = nil
    ) throws -> [Annotation] {
        guard !query.isEmpty else { throw PDFError(.invalidArgument, "the text to redact is empty") }
        try Document.checkRedactionFill(fill)
        let matches = try searchText(query, options: options)
        return try allOrNothing {
            try matches.compactMap { match in
                // The text found is in the content, wherever it lies: a match outside the
                // crop box is marked too, and a glyph of no size (size 0, Tz 0) gets a
                // region of half a point around it, so that applying removes it.
                let quads = match.span.quads.map { Document.grownToHalfAPoint($0) }
                guard !quads.isEmpty else { return nil }
                return try addRedactionMark(
                    pageIndex: match.pageIndex,
                    quads: quads,
                    fill: fill,
                    overlayText: overlayText,
                    author: nil
                )
            }
        }
    }

    // MARK: Applying

    /// Applies every Redact annotation (ISO 32000-2 §12.5.6.23): on each page with one,
    /// what lies in its regions (its quadrilaterals' boxes, else its /Rect) is removed from
    /// the page's content streams and from the form XObjects they draw (rewritten copies
    /// replace the forms and images that change, so other pages that share them keep
    /// theirs):
    ///
    /// - every glyph whose box (its glyph box, else its advance by the font's ascent and
    ///   descent) intersects a region: the text operator becomes a TJ without it, a number
    ///   in its place, so the text that stays keeps its positions; marked content whose
    ///   glyphs lost some loses its /ActualText (/Alt, /E) too;
    /// - images drawn in a region: removed when one region covers them, else their pixels
    ///   in the regions blanked and the image re-encoded with Flate (an image in DCT, JPX,
    ///   JBIG2 or CCITT is removed whole instead, with a note in the result); inline images
    ///   that intersect a region are removed whole;
    /// - vector paths that lie wholly in a region (strokes with half their line width); a
    ///   path that also clips keeps its clip. Paths that cross a region's edge stay, under
    ///   the fill colour;
    /// - annotations and widgets that intersect a region (widgets leave the field tree).
    ///
    /// Then each region is filled with /IC and /OverlayText is drawn in it (or /RO, when the
    /// annotation has one), and the Redact annotations are removed. `options` chooses what
    /// is removed and the document cleanup.
    ///
    /// A document that is encrypted must have been opened with its owner password; a synced
    /// document refuses (`.state`: its PDF is the server's). A page
    /// whose content cannot be read to its end (damaged, over a limit) fails the call
    /// (`PDFError(.format)`): what was not read cannot be known to lie outside the regions.
    /// All or nothing: an error leaves the document as it was.
    ///
    /// Afterwards the next save must be a full one (``SaveMode/full(objectStreams:)``): an
    /// incremental save would keep the original bytes, so it is refused.
    @discardableResult
    public func applyRedactions(
        _ options: RedactionOptions = RedactionOptions(),
        progress: ProgressHandler? = nil
    ) throws -> RedactionResult {
        try checkStructureEditable("redactions cannot be applied")
        if isEncrypted, !(file.security?.authenticatedAsOwner ?? false) {
            throw PDFError(
                .password,
                "the document is encrypted and was not opened with its owner password: redactions cannot be applied"
            )
        }
        try checkCertification(allows: .other)
        let result = try allOrNothing { () -> RedactionResult in
            var result = RedactionResult()
            let all = try pages()
            try progress?(0, all.count)
            for (done, page) in all.enumerated() {
                if done > 0 { try progress?(done, all.count) }
                let marks = try annotations(onPage: page.index).filter { $0.subtype == "Redact" && $0.id != nil }
                guard !marks.isEmpty else { continue }
                try applyRedactions(marks, on: page, options: options, into: &result)
            }
            try cleanUp(options)
            try progress?(all.count, all.count)
            return result
        }
        for note in result.notes { file.warn(note) }
        let cleaned = options.removeMetadata || options.removeEmbeddedFiles || options.removeJavaScript
        guard result.redactions > 0 || cleaned else { return result }
        noteModification(.other)
        fullSaveRequired =
            "redactions were applied: only a full save removes the original bytes (an incremental one would keep them)"
        return result
    }

    private func applyRedactions(
        _ marks: [Annotation],
        on page: Page,
        options: RedactionOptions,
        into result: inout RedactionResult
    ) throws {
        guard let pageID = page.id else { return }
        let regions = marks.flatMap { Appearance.regions($0) }.filter {
            let b = $0.bounds
            return [b.left, b.bottom, b.right, b.top].allSatisfy(\.isFinite) && b.width > 0 && b.height > 0
        }
        // The content, read and rewritten.
        let redaction = ContentRedaction(document: self, regions: regions, options: options, pageNumber: page.index + 1)
        var interpreter = ContentTextInterpreter(document: self, limits: .default)
        interpreter.redaction = redaction
        interpreter.run(page: page)
        if let failure = redaction.failure {
            throw PDFError(
                .format,
                "page \(page.index + 1): \(failure): the redactions were not applied (nothing changed)"
            )
        }
        var changed = false
        if let frame = redaction.pageFrame, frame.changed {
            changed = true
            let data = try Filters.deflate(frame.rewritten())
            let contents = try addStream(PDFDictionary([("Filter", .name("FlateDecode"))]), data: data)
            var pageDict = try object(pageID.number).dictionary ?? page.dictionary
            pageDict["Contents"] = .reference(contents)
            if !frame.xobjects.isEmpty || !frame.replaced.isEmpty {
                var resources =
                    (try dictionary(pageDict["Resources"] ?? page.inheritedResources ?? .null)) ?? PDFDictionary()
                resources["XObject"] = .dictionary(
                    frame.resources((try dictionary(resources["XObject"])) ?? PDFDictionary())
                )
                pageDict["Resources"] = .dictionary(resources)
            }
            try setObject(pageID.number, .dictionary(pageDict))
        }
        result.glyphsRemoved += redaction.result.glyphsRemoved
        result.imagesRemoved += redaction.result.imagesRemoved
        result.imagesBlanked += redaction.result.imagesBlanked
        result.pathsRemoved += redaction.result.pathsRemoved
        result.notes += redaction.result.notes
        // Annotations and widgets in the regions, then the Redact annotations.
        let markIDs = Set(marks.compactMap { $0.id?.number })
        var widgets: Set<Int> = []
        var gone: [ObjectID] = []
        if options.annotations {
            let check = ContentRedaction(document: self, regions: regions, options: options, pageNumber: page.index + 1)
            for a in try annotations(onPage: page.index) {
                guard let id = a.id, !markIDs.contains(id.number), a.subtype != "Popup",
                    Self.drawnExtents(a).contains(where: check.intersects)
                else {
                    continue
                }
                if a.subtype == "Widget" { widgets.insert(id.number) }
                gone.append(id)
            }
        }
        // The fill and overlay text of each mark, drawn on the page (a Redact annotation's
        // /RO, when it has one, is its overlay).
        var draws: [(PDFObject, PDFDictionary)] = []
        for mark in marks {
            guard let id = mark.id else { continue }
            let rect = PDFDictionary([
                (
                    "Rect",
                    .array([mark.rect.left, mark.rect.bottom, mark.rect.right, mark.rect.top].map(Annotation.number))
                )
            ])
            let dict = try dictionary(.reference(id)) ?? PDFDictionary()
            let stream = try addAppearanceStream(Appearance.redacted(for: mark, document: self, strict: false))
            draws.append((.reference(stream), rect))
            if let ro = dict["RO"], case .stream = try resolve(ro) { draws.append((ro, rect)) }
        }
        for id in gone where isInUse(id.number) {
            if widgets.contains(id.number) {
                try removeWidget(id, from: page)
            } else if try annotation(id) != nil {
                try deleteAnnotationUnbatched(id)
            }
        }
        result.annotationsRemoved += gone.count
        if !widgets.isEmpty {
            for field in try pruneFieldTree(removing: widgets) where isInUse(field) { try deleteObject(field) }
        }
        for mark in marks {
            if let id = mark.id, isInUse(id.number), try annotation(id) != nil { try deleteAnnotationUnbatched(id) }
        }
        result.redactions += marks.count
        try drawAppearances(draws, on: try self.page(at: page.index), pageID: pageID)
        if changed || !draws.isEmpty { result.pages += 1 }
    }

    /// Where annotation `a` may be drawn: its /Rect, and the bounds of the points that a
    /// viewer draws it from when it has no appearance (PDFium and MuPDF build one from its
    /// /QuadPoints, /InkList, /L or /Vertices, wherever its /Rect is: an underline whose
    /// /Rect is elsewhere on the page still marks the words of its quads).
    static func drawnExtents(_ a: Annotation) -> [Rect] {
        let width = a.borderWidth.flatMap { $0.isFinite ? Swift.min(Swift.max($0, 0), 100) : nil } ?? 1
        let points = [a.quadPoints, a.linePoints, a.vertices] + a.inkList
        return [a.rect] + points.compactMap { $0.allSatisfy(\.isFinite) ? bounds($0, pad: width / 2) : nil }
    }

    /// Takes widget `id` off `page`'s /Annots and deletes it (the field tree is pruned by
    /// the caller).
    private func removeWidget(_ id: ObjectID, from page: Page) throws {
        let current = try self.page(at: page.index)
        let annots = try current.dictionary["Annots"].map(resolve)?.array ?? []
        try setAnnots(current, annots.filter { $0.reference?.number != id.number })
        try deleteObject(id.number)
    }

    /// The document-level cleanup of `options`.
    private func cleanUp(_ options: RedactionOptions) throws {
        guard let rootID = trailer["Root"]?.reference else { return }
        if options.removeMetadata {
            try setValue(nil, forKey: "Metadata", inObject: rootID.number)
            // The document information dictionary, emptied (the trailer names it).
            if let info = trailer["Info"]?.reference, isInUse(info.number) {
                try setObject(info.number, .dictionary(PDFDictionary()))
            }
        }
        var names: [PDFName] = []
        if options.removeEmbeddedFiles {
            names.append("EmbeddedFiles")
            try setValue(nil, forKey: "AF", inObject: rootID.number)
            for page in try pages() {
                for a in try annotations(onPage: page.index) where a.subtype == "FileAttachment" {
                    if let id = a.id, isInUse(id.number) { try deleteAnnotationUnbatched(id) }
                }
            }
        }
        if options.removeJavaScript {
            names.append("JavaScript")
            let catalog = try self.catalog()
            if let open = try dictionary(catalog["OpenAction"]), try open["S"].map(resolve)?.name?.value == "JavaScript"
            {
                try setValue(nil, forKey: "OpenAction", inObject: rootID.number)
            }
            try setValue(nil, forKey: "AA", inObject: rootID.number)
        }
        guard !names.isEmpty, let namesValue = try catalog()["Names"], var tree = try dictionary(namesValue) else {
            return
        }
        for name in names { tree[name] = nil }
        if let ref = namesValue.reference {
            try setObject(ref.number, .dictionary(tree))
        } else {
            try setValue(.dictionary(tree), forKey: "Names", inObject: rootID.number)
        }
    }
}
