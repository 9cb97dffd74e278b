import QuireDocument
import QuireSyntax

/// What changed between a signed revision (`old`) and the file as it is (`new`), in
/// DocMDP's terms (ISO 32000-2 §12.8.2.2): each object whose cross-reference entry moved
/// is compared with its old value and classified; the widest class is the answer.
///
/// The classes, from narrowest to widest:
/// - validation data: a document security store (/DSS) in the catalog;
/// - form filling and signing: a field's /V, /AS or /AP, a new signature field and its
///   signature dictionary, the form's /Fields, /SigFlags, /DR, /NeedAppearances;
/// - annotations: an annotation (not a widget) added, changed or removed, and the page's
///   /Annots for it;
/// - other: anything else that was in the signed revision and changed (page content, the
///   page tree, the catalog's other entries, ...).
///
/// New objects that are none of those (appearance streams, fonts) are judged through
/// what refers to them: by themselves they change nothing. Cross-reference and object
/// streams are the file's bookkeeping.
struct ChangeClassifier {
    let old: Document
    let new: Document
    /// The appearance streams of the new revision's annotations.
    private var appearances: Set<Int> = []
    /// Each changed object that counts, with its class, in object order.
    private(set) var changes: [(object: Int, kind: ModificationKind)] = []

    init(old: Document, new: Document) {
        self.old = old
        self.new = new
    }

    mutating func widestChange() throws -> ModificationKind? {
        var widest: ModificationKind? = nil
        var current = 0
        var changes: [(object: Int, kind: ModificationKind)] = []
        defer { self.changes = changes }
        func note(_ k: ModificationKind?) {
            guard let k else { return }
            changes.append((current, k))
            if widest.map({ $0 < k }) ?? true { widest = k }
        }
        let oldFile = old.file
        let newFile = new.file
        let catalogNumber = new.trailer["Root"]?.reference?.number
        let infoNumber = new.trailer["Info"]?.reference?.number
        let acroFormNumber = try new.catalog()["AcroForm"]?.reference?.number
        let fieldsNumber = try new.dictionary(try new.catalog()["AcroForm"])?["Fields"]?.reference?.number
        var annotsArrays: Set<Int> = []
        var appearances: Set<Int> = []
        for page in try new.pages() {
            if let r = page.dictionary["Annots"]?.reference { annotsArrays.insert(r.number) }
            for (_, annot) in try page.annotationDictionaries() {
                guard let ap = try new.dictionary(annot["AP"]) else { continue }
                for key: PDFName in ["N", "R", "D"] {
                    guard let v = ap[key] else { continue }
                    if let r = v.reference, try new.dictionary(v)?["Subtype"] != nil || (try? new.object(r.number))?.dictionary?["BBox"] != nil {
                        appearances.insert(r.number)
                    } else if let states = try new.dictionary(v) {
                        for (_, state) in states { if let r = state.reference { appearances.insert(r.number) } }
                    }
                }
            }
        }
        self.appearances = appearances
        let numbers = Set(newFile.objectNumbers).union(oldFile.objectNumbers)
        for n in numbers.sorted() where n > 0 {
            guard changed(n) else { continue }
            current = n
            let before = try? old.object(n)
            let after = try? new.object(n)
            let was = (before == nil || before == .null) ? nil : before
            let now = (after == nil || after == .null) ? nil : after
            if was == nil && now == nil { continue }
            if n == infoNumber { continue }  // the document information dictionary (dates, producer)
            if n == catalogNumber {
                note(catalogChange(was?.dictionary, now?.dictionary))
                continue
            }
            if n == acroFormNumber || n == fieldsNumber {
                note(keysChanged(was?.dictionary, now?.dictionary, allowed: ["Fields", "SigFlags", "DR", "DA", "NeedAppearances"]) ? .formFilling : .other)
                if n == fieldsNumber, was?.array != nil || now?.array != nil { note(.formFilling) }
                continue
            }
            if annotsArrays.contains(n), let a = now?.array {
                note(try annotsChange(was?.array ?? [], a))
                continue
            }
            note(try objectChange(n, was, now))
        }
        return widest
    }

    /// Whether object `n`'s entry differs between the two cross-references (an object in
    /// an object stream changed when the stream did).
    private func changed(_ n: Int) -> Bool {
        let a = old.file.entry(n)
        let b = new.file.entry(n)
        if a != b { return true }
        if case .compressed(let s, _)? = b { return old.file.entry(s) != new.file.entry(s) }
        return false
    }

    private func keysChanged(_ a: PDFDictionary?, _ b: PDFDictionary?, allowed: Set<String>) -> Bool {
        guard let a, let b else { return a == nil && b != nil }
        let keys = Set(a.keys.map(\.value)).union(b.keys.map(\.value))
        return keys.allSatisfy { allowed.contains($0) || a[PDFName($0)] == b[PDFName($0)] }
    }

    private func catalogChange(_ a: PDFDictionary?, _ b: PDFDictionary?) -> ModificationKind {
        guard let a, let b else { return .other }
        var kind: ModificationKind? = nil
        for key in Set(a.keys.map(\.value)).union(b.keys.map(\.value)) where a[PDFName(key)] != b[PDFName(key)] {
            let k: ModificationKind
            switch key {
            case "DSS": k = .validationData
            case "AcroForm": k = .formFilling
            default: k = .other
            }
            if kind.map({ $0 < k }) ?? true { kind = k }
        }
        return kind ?? .validationData
    }

    /// A page's /Annots from `a` to `b`: signature widgets added are signing; any other
    /// annotation added or removed is an annotation change.
    private func annotsChange(_ a: [PDFObject], _ b: [PDFObject]) throws -> ModificationKind {
        let before = Set(a.compactMap { $0.reference?.number })
        let after = Set(b.compactMap { $0.reference?.number })
        var kind: ModificationKind = .formFilling
        for n in after.symmetricDifference(before) {
            let d = try (after.contains(n) ? new : old).dictionary(.reference(ObjectID(n, 0)))
            if !(d.map(isSignatureWidget) ?? false) { kind = .annotations }
        }
        return kind
    }

    private func isSignatureWidget(_ d: PDFDictionary) -> Bool {
        d["Subtype"]?.name == "Widget" && (d["FT"]?.name == "Sig" || (try? new.dictionary(d["Parent"]))??["FT"]?.name == "Sig")
    }

    private func objectChange(_ n: Int, _ was: PDFObject?, _ now: PDFObject?) throws -> ModificationKind? {
        let type = (now ?? was)?.dictionary?["Type"]?.name?.value
        if type == "XRef" || type == "ObjStm" { return nil }
        let subtype = (now ?? was)?.dictionary?["Subtype"]?.name?.value
        // A signature dictionary, new.
        if was == nil, type == "Sig" || type == "DocTimeStamp" { return .formFilling }
        // Widgets and fields.
        if let d = (now ?? was)?.dictionary, subtype == "Widget" || d["FT"] != nil || (type == nil && d["Parent"] != nil && d["T"] != nil) {
            if was == nil { return isSignatureWidget(d) || d["FT"]?.name == "Sig" ? .formFilling : .other }
            return keysChanged(was?.dictionary, now?.dictionary, allowed: ["V", "AS", "AP", "MK", "M"]) ? .formFilling : .other
        }
        // Annotations.
        if let d = (now ?? was)?.dictionary, type == "Annot" || (subtype != nil && d["Rect"] != nil) {
            return .annotations
        }
        // A page whose only change is its /Annots.
        if type == "Page", let a = was?.dictionary, let b = now?.dictionary {
            if keysChanged(a, b, allowed: ["Annots"]) {
                let before = try old.resolve(a["Annots"] ?? .null).array ?? []
                let after = try new.resolve(b["Annots"] ?? .null).array ?? []
                return try annotsChange(before, after)
            }
            return .other
        }
        // Something new that nothing above is: judged by what refers to it.
        if was == nil { return nil }
        // An appearance stream of an annotation, redrawn.
        if case .stream? = now, appearances.contains(n) { return .annotations }
        return .other
    }
}
