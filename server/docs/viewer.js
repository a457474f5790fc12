// Boots the interactive reference from Kontor's own copy of Swagger UI (no CDN, works offline).
(function () {
  var css = document.createElement("link");
  css.rel = "stylesheet";
  css.href = "/docs/assets/swagger-ui.css";
  document.head.appendChild(css);
  var root = document.createElement("div");
  root.id = "swagger-ui";
  document.body.appendChild(root);
  var script = document.createElement("script");
  script.src = "/docs/assets/swagger-ui-bundle.js";
  script.onload = function () {
    window.ui = SwaggerUIBundle({ url: "/docs/openapi.json", dom_id: "#swagger-ui", deepLinking: true, persistAuthorization: true });
  };
  document.head.appendChild(script);
})();
