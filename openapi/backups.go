package openapi

import "net/http"

// schemaBackup is a backup archive in the backup store.
const schemaBackup = "KitBackup"

// addBackupRoutes describes the super-admins' backup routes.
func addBackupRoutes(d *Document, o Options) error {
	if err := d.AddSchema(schemaBackup, object(Schema{"name": str(), "size": Schema{"type": "integer"}, "createdAt": dateTime()},
		"name", "size", "createdAt")); err != nil {
		return err
	}
	tags := []string{"kit"}
	ops := []routeOp{
		{http.MethodGet, o.Prefix + "/super-admin/backups", (&Operation{OperationID: "superAdminListBackups", Tags: tags,
			Summary:     "The backups (super-admins)",
			Description: "The backup archives of the backup store (Config.Backups), newest first. Super-admins only; 404 when the server keeps no backups.",
			Responses: map[string]*Response{"200": JSONResponse("the backups",
				object(Schema{"items": arrayOf(Ref(schemaBackup))}, "items"))}}).AddErrors(401, 403, 404, 500)},
		{http.MethodPost, o.Prefix + "/super-admin/backups", (&Operation{OperationID: "superAdminCreateBackup", Tags: tags,
			Summary: "Make a backup now (super-admins)",
			Description: "Writes a backup archive (manifest.json, the database, the files of file fields) to the backup store while the server " +
				"keeps serving, under a temporary name first. Super-admins only; 404 when the server keeps no backups, 501 on PostgreSQL without Config.Backups.PgDumpURL.",
			Responses: map[string]*Response{"201": JSONResponse("the backup made", Ref(schemaBackup))}}).AddErrors(401, 403, 404, 500, 501)},
		{http.MethodGet, o.Prefix + "/super-admin/backups/{name}", (&Operation{OperationID: "superAdminDownloadBackup", Tags: tags,
			Summary:     "Download a backup (super-admins)",
			Description: "The archive as an attachment (application/x-tar; ranges supported). Super-admins only; 404 for a name the store does not hold.",
			Parameters:  []*Parameter{{Name: "name", In: "path", Required: true, Description: "a backup's name, kit-....tar", Schema: str()}},
			Responses: map[string]*Response{"200": {Description: "the archive", Content: map[string]MediaType{
				"application/x-tar": {Schema: Schema{"type": "string", "format": "binary"}}}}}}).AddErrors(401, 403, 404, 500)},
	}
	for _, r := range ops {
		if err := d.Add(r.method, r.path, r.op); err != nil {
			return err
		}
	}
	return nil
}
